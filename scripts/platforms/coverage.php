<?php
// coverage.php: did a crawl of a platform install capture its content? Asks the site's own
// API what it holds and looks each URL up in the crawl's crawl.log (a 2xx capture, or a
// redirect to one). Part of issue 26's measure (scripts/platforms/share.sh is the other).
//
//   php scripts/platforms/coverage.php mediawiki|wordpress CRAWL_DIR ADDR:PORT HOST
//
// mediawiki: every page of the main, Category and File namespaces, and every uploaded file;
// wordpress: every post, page, tag and category archive, and the post of every comment.
// Embeds: every URL the crawl fetched as an embed (hop path ending in E) and its status.
// Prints what is missing, then one line of counts; exits 1 when something is missing.
[$_, $platform, $dir, $addr, $host] = $argv;

function api(string $addr, string $host, string $path): array {
	$ctx = stream_context_create(['http' => ['header' => "Host: $host\r\n", 'ignore_errors' => true]]);
	$body = file_get_contents("http://$addr$path", false, $ctx);
	$v = json_decode($body, true);
	if (!is_array($v)) {
		fwrite(STDERR, "coverage: $path: not JSON\n");
		exit(2);
	}
	return $v;
}

// The crawl's captures: URL => status, and the redirects: URL => target.
$status = [];
$embeds = ['ok' => 0, 'bad' => []];
foreach (file("$dir/logs/crawl.log") as $line) {
	$f = preg_split('/ +/', trim($line));
	if (count($f) < 6) continue;
	$code = (int)$f[1];
	$url = $f[3];
	if ($code > 0 || !isset($status[$url])) $status[$url] = $code;
	if ($code > 0 && str_ends_with($f[4], 'E')) {
		if ($code >= 200 && $code < 400) $embeds['ok']++; else $embeds['bad'][] = "$code $url";
	}
}
function captured(array $status, string $url): bool {
	$c = $status[$url] ?? 0;
	return $c >= 200 && $c < 400;
}

$want = [];
if ($platform === 'mediawiki') {
	foreach ([0 => 'article', 14 => 'category page', 6 => 'file page'] as $ns => $kind) {
		$r = api($addr, $host, "/api.php?action=query&list=allpages&apnamespace=$ns&aplimit=500&format=json");
		foreach ($r['query']['allpages'] as $p) {
			$want[] = [$kind, "http://$host/index.php?title=" . str_replace(['%3A', '%2F'], [':', '/'], rawurlencode(str_replace(' ', '_', $p['title'])))];
		}
	}
	$r = api($addr, $host, "/api.php?action=query&list=allimages&aiprop=url&ailimit=500&format=json");
	foreach ($r['query']['allimages'] as $i) $want[] = ['uploaded file', $i['url']];
} elseif ($platform === 'wordpress') {
	foreach (['posts' => 'post', 'pages' => 'page', 'tags' => 'tag archive', 'categories' => 'category archive'] as $type => $kind) {
		foreach (api($addr, $host, "/wp-json/wp/v2/$type?per_page=100") as $p) {
			if (($p['count'] ?? 1) > 0) $want[] = [$kind, $p['link']];
		}
	}
	$posts = [];
	foreach (api($addr, $host, "/wp-json/wp/v2/comments?per_page=100") as $c) {
		$posts[$c['post']] = true;
	}
	foreach (array_keys($posts) as $id) {
		$p = api($addr, $host, "/wp-json/wp/v2/posts/$id");
		$want[] = ['post with comments', $p['link']];
	}
} else {
	fwrite(STDERR, "coverage: platform $platform: want mediawiki or wordpress\n");
	exit(2);
}

$counts = [];
$missing = 0;
foreach ($want as [$kind, $url]) {
	$counts[$kind] ??= [0, 0];
	$counts[$kind][1]++;
	if (captured($status, $url)) {
		$counts[$kind][0]++;
	} else {
		$missing++;
		echo "missing $kind: $url\n";
	}
}
foreach ($embeds['bad'] as $b) echo "embed not captured: $b\n";
$parts = [];
foreach ($counts as $kind => [$got, $of]) $parts[] = "$kind $got/$of";
$parts[] = "embeds " . $embeds['ok'] . "/" . ($embeds['ok'] + count($embeds['bad']));
echo implode(', ', $parts), "\n";
exit($missing + count($embeds['bad']) > 0 ? 1 : 0);
