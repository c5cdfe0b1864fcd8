<?php
// gentext.php: deterministic article text for the platform installs of scripts/platforms.
// Each article is several paragraphs of sentences drawn with a seeded generator from a fixed
// English vocabulary, so that articles differ in content (as real articles do) and a rerun
// gives the same site. Used by mediawiki.sh and wordpress.sh.
//
//   php gentext.php titles N           N titles, one a line
//   php gentext.php text SEED WORDS    about WORDS words of prose, paragraphs split by blank lines

$nouns = explode(' ', 'harbor lighthouse river valley mountain forest village market bridge ' .
	'castle garden library museum railway station canal island meadow orchard quarry mill ' .
	'cathedral fortress abbey tower square theatre school factory farm vineyard glacier lake ' .
	'coast cliff cave desert plateau delta estuary reservoir dam tunnel highway port shipyard ' .
	'observatory archive gallery workshop foundry brewery bakery chapel monastery palace manor');
$adjs = explode(' ', 'old northern southern eastern western upper lower great little royal ' .
	'ancient hidden silent golden silver green red white black new high deep broad narrow ' .
	'quiet busy distant coastal central rural');
$verbs = explode(' ', 'built restored described mapped visited painted recorded surveyed ' .
	'rebuilt extended abandoned flooded protected studied photographed measured named ' .
	'catalogued excavated opened closed renovated connected supplied served housed replaced');
$people = explode(' ', 'merchants monks engineers farmers sailors travellers historians ' .
	'architects surveyors painters miners weavers fishermen pilgrims scholars soldiers ' .
	'carpenters masons gardeners archivists');
$times = explode(' ', 'spring summer autumn winter morning evening century decade year season');
$links = explode(' ', 'because although while after before when since until whereas and but');

function title_of(int $i): string {
	global $nouns, $adjs;
	$a = $adjs[($i * 7 + 3) % count($adjs)];
	$n = $nouns[($i * 11 + 5) % count($nouns)];
	return ucfirst($a) . ' ' . $n . ' ' . (1 + intdiv($i, 3));
}

function sentence(): string {
	global $nouns, $adjs, $verbs, $people, $times, $links;
	$p = fn(array $a) => $a[mt_rand(0, count($a) - 1)];
	$year = mt_rand(1200, 2020);
	$forms = [
		fn() => "The {$p($adjs)} {$p($nouns)} was {$p($verbs)} by {$p($people)} in $year",
		fn() => "In the {$p($times)} of $year the {$p($people)} {$p($verbs)} the {$p($nouns)} near the {$p($adjs)} {$p($nouns)}",
		fn() => "Its {$p($adjs)} walls were {$p($verbs)} {$p($links)} the {$p($people)} of the {$p($nouns)} {$p($verbs)} them",
		fn() => "Records from $year say that " . mt_rand(2, 900) . " {$p($people)} lived by the {$p($nouns)}",
		fn() => "A {$p($adjs)} {$p($nouns)} and a {$p($adjs)} {$p($nouns)} were {$p($verbs)} together {$p($links)} the {$p($times)} was {$p($adjs)}",
	];
	return ucfirst($forms[mt_rand(0, count($forms) - 1)]()) . '.';
}

switch ($argv[1] ?? '') {
case 'titles':
	for ($i = 0; $i < (int)$argv[2]; $i++) {
		echo title_of($i), "\n";
	}
	break;
case 'text':
	mt_srand((int)$argv[2]);
	$want = (int)$argv[3];
	$words = 0;
	$paras = [];
	while ($words < $want) {
		$s = [];
		for ($k = mt_rand(3, 7); $k > 0; $k--) {
			$t = sentence();
			$words += str_word_count($t);
			$s[] = $t;
		}
		$paras[] = implode(' ', $s);
	}
	echo implode("\n\n", $paras), "\n";
	break;
default:
	fwrite(STDERR, "usage: php gentext.php titles N | text SEED WORDS\n");
	exit(2);
}
