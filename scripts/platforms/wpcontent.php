<?php
// wpcontent.php: the content of the test blog of wordpress.sh, written through WordPress's own
// API (wp-load.php): permalinks, categories, tags, pages, posts with images and comments.
//
//   HTTP_HOST=blog.amber.test php wpcontent.php GENTEXT IMGDIR POSTS
//
// GENTEXT is gentext.php (the generated prose), IMGDIR holds plate-1.jpg ... plate-12.jpg.

$_SERVER['HTTP_HOST'] = getenv('HTTP_HOST');
$_SERVER['REQUEST_URI'] = '/';
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/media.php';

[, $gentext, $imgdir, $posts] = $argv;
$posts = (int)$posts;

function text(int $seed, int $words): array {
	global $gentext;
	$out = shell_exec('php ' . escapeshellarg($gentext) . " text $seed $words");
	return array_values(array_filter(array_map('trim', explode("\n\n", $out))));
}

function paragraphs(array $ps): string {
	$html = '';
	foreach ($ps as $p) {
		$html .= "<!-- wp:paragraph -->\n<p>" . esc_html($p) . "</p>\n<!-- /wp:paragraph -->\n\n";
	}
	return $html;
}

// The installer's choice when the server rewrites URLs: day and name.
global $wp_rewrite;
$wp_rewrite->set_permalink_structure('/%year%/%monthnum%/%day%/%postname%/');
$wp_rewrite->flush_rules(false);
wp_set_current_user(1);

$cats = [];
foreach (['Harbours', 'Rivers', 'Mountains', 'Villages', 'Railways', 'Gardens'] as $c) {
	$cats[] = wp_insert_term($c, 'category')['term_id'];
}
$tags = ['archives', 'bridges', 'canals', 'coast', 'engineering', 'history', 'maps',
	'mills', 'monasteries', 'photography', 'restoration', 'surveys'];

$about = wp_insert_post(['post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'About',
	'post_content' => paragraphs(text(7001, 220))]);
foreach (['Contact', 'History of the blog', 'Reading list', 'Sources'] as $k => $t) {
	wp_insert_post(['post_type' => 'page', 'post_status' => 'publish', 'post_title' => $t,
		'post_parent' => $k >= 2 ? $about : 0, 'post_content' => paragraphs(text(7002 + $k, 160 + 40 * $k))]);
}

$ids = [];
$start = strtotime('2025-10-03 09:00:00 UTC');
for ($i = 0; $i < $posts; $i++) {
	$when = gmdate('Y-m-d H:i:s', $start + (int)($i * 14 * 30 * 86400 / max(1, $posts)));
	$title = ucfirst(implode(' ', array_slice(explode(' ', strtolower(text(5000 + $i, 8)[0])), 0, 6)));
	$title = rtrim($title, '.');
	$content = paragraphs(text(i_seed($i), 180 + ($i * 53) % 520));
	if ($ids) {
		$prev = $ids[($i * 7) % count($ids)];
		$content .= "<!-- wp:paragraph -->\n<p>See also <a href=\"" . esc_url(get_permalink($prev)) . '">' .
			esc_html(get_the_title($prev)) . "</a>.</p>\n<!-- /wp:paragraph -->\n";
	}
	$id = wp_insert_post(['post_status' => 'publish', 'post_title' => $title, 'post_content' => $content,
		'post_date' => $when, 'post_date_gmt' => $when, 'post_category' => [$cats[$i % count($cats)]],
		'tags_input' => array_slice(array_merge(array_slice($tags, ($i * 5) % 12), $tags), 0, 1 + $i % 3)]);
	if ($i % 5 == 0) {
		$file = sprintf('%s/plate-%d.jpg', $imgdir, ($i / 5) % 12 + 1);
		$tmp = wp_tempnam(basename($file));
		copy($file, $tmp);
		$att = media_handle_sideload(['name' => basename($file), 'tmp_name' => $tmp], $id, "Plate for post $i");
		if (!is_wp_error($att)) {
			set_post_thumbnail($id, $att);
			$src = wp_get_attachment_image_url($att, 'large');
			$img = "<!-- wp:image {\"id\":$att,\"sizeSlug\":\"large\"} -->\n<figure class=\"wp-block-image size-large\"><img src=\"" .
				esc_url($src) . "\" alt=\"\" class=\"wp-image-$att\"/></figure>\n<!-- /wp:image -->\n\n";
			wp_update_post(['ID' => $id, 'post_content' => $img . $content]);
		}
	}
	$parent = 0;
	for ($c = 0; $c < $i % 6; $c++) {
		$cid = wp_insert_comment(['comment_post_ID' => $id, 'comment_approved' => 1,
			'comment_author' => ['Ada', 'Brian', 'Chen', 'Dora', 'Emil'][($i + $c) % 5],
			'comment_author_email' => "reader$c@example.org",
			'comment_content' => implode("\n\n", text(9000 + $i * 10 + $c, 40)),
			'comment_date' => $when, 'comment_date_gmt' => $when,
			'comment_parent' => ($c % 2 == 1) ? $parent : 0]);
		if ($c % 2 == 0) {
			$parent = $cid;
		}
	}
	$ids[] = $id;
}

function i_seed(int $i): int { return 3000 + $i; }

echo count($ids), " posts\n";
