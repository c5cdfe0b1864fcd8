#!/usr/bin/env bash
# wordpress.sh: a default WordPress install (Debian's package, 6.1 on bookworm, theme Twenty
# Twenty-Three) on MariaDB, with generated posts, pages, tags and comments, served by nginx and
# php-fpm on 127.0.0.1, to crawl with amber.
#
#   scripts/platforms/wordpress.sh DIR PORT [POSTS]   set up (once) and serve the blog
#   scripts/platforms/wordpress.sh stop DIR           stop its nginx, php-fpm and MariaDB
#
# The blog's address is http://blog.amber.test/; reach it with `amber crawl --allow-private
# --connect-to blog.amber.test:80:127.0.0.1:PORT`. WordPress is installed through its own
# install.php form (with curl), as a person would; then wpcontent.php, run against wp-load.php,
# sets the permalinks the installer chooses when the server rewrites URLs (day and name),
# and writes POSTS posts (default 60) of generated prose (gentext.php) over 14 months, each in one
# of 6 categories with 1-3 of 12 tags and 0-5 comments (some of them replies), every fifth
# with an uploaded image; 6 pages (two of them children). Debian's wp-config.php reads
# /etc/wordpress/config-blog.amber.test.php, which this script writes; the database (MariaDB,
# its own server on a socket in DIR/run/mysql.sock, no network), uploads and logs stay in DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

host=blog.amber.test
if [[ ${1:-} == stop ]]; then
	stop_pid "$2/nginx.pid"
	stop_pid "$2/php-fpm.pid"
	stop_pid "$2/run/mysql.pid"
	exit 0
fi
dir=$(mkdir -p "$1" && cd "$1" && pwd)
port=$2
posts=${3:-60}
wp=/usr/share/wordpress

# flush_rewrite DIR: rewrite WordPress's rewrite rules, as saving the permalinks page does.
flush_rewrite() {
	HTTP_HOST=$host php -r '$_SERVER["HTTP_HOST"] = getenv("HTTP_HOST"); $_SERVER["REQUEST_URI"] = "/";
		require "/usr/share/wordpress/wp-load.php"; flush_rewrite_rules(false);'
	touch "$1/.rewrite-flushed"
}

need_packages wordpress mariadb-server nginx php-fpm php-mysql php-gd php-xml php-mbstring imagemagick curl

# MariaDB: a server of its own, on a socket in DIR.
if [[ ! -d $dir/mysql ]]; then
	mariadb-install-db --datadir="$dir/mysql" --user=mysql --auth-root-authentication-method=socket >/dev/null
fi
mkdir -p "$dir/run" && chown mysql: "$dir/run" && chmod 755 "$dir"
if ! [[ -S $dir/run/mysql.sock ]] || ! mariadb-admin --socket="$dir/run/mysql.sock" ping >/dev/null 2>&1; then
	chown -R mysql: "$dir/mysql"
	mariadbd --datadir="$dir/mysql" --socket="$dir/run/mysql.sock" --pid-file="$dir/run/mysql.pid" \
		--skip-networking --user=mysql --log-error="$dir/run/mysql.log" &
	for _ in $(seq 100); do mariadb-admin --socket="$dir/run/mysql.sock" ping >/dev/null 2>&1 && break; sleep 0.2; done
fi
mariadb --socket="$dir/run/mysql.sock" -e "CREATE DATABASE IF NOT EXISTS wordpress;
	CREATE USER IF NOT EXISTS 'wordpress'@'localhost' IDENTIFIED BY 'amber-wp-2026';
	GRANT ALL ON wordpress.* TO 'wordpress'@'localhost'; FLUSH PRIVILEGES;"

mkdir -p "$dir/wp-content/uploads" "$dir/wp-content/plugins" "$dir/wp-content/themes"
ln -sfn $wp/wp-content/themes/twentytwentythree "$dir/wp-content/themes/twentytwentythree"
ln -sfn $wp/wp-content/plugins/akismet "$dir/wp-content/plugins/akismet"
chown -R www-data: "$dir/wp-content/uploads"
cat >/etc/wordpress/config-$host.php <<CONF
<?php
# Written by amber's scripts/platforms/wordpress.sh for the test blog in $dir.
define('DB_NAME', 'wordpress');
define('DB_USER', 'wordpress');
define('DB_PASSWORD', 'amber-wp-2026');
define('DB_HOST', 'localhost:$dir/run/mysql.sock');
define('WP_CONTENT_DIR', '$dir/wp-content');
define('WP_HOME', 'http://$host');
define('WP_SITEURL', 'http://$host');
define('FS_METHOD', 'direct');
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
CONF
chmod 644 /etc/wordpress/config-$host.php

start_php "$dir"
start_nginx "$dir" "$port" "$wp" "
		location / { try_files \$uri \$uri/ /index.php\$is_args\$args; }
		location /wp-content/ { alias $dir/wp-content/; }
		location ~ \.php\$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
			fastcgi_pass unix:$dir/php.sock;
		}"
base=http://127.0.0.1:$port
wait_http -H "Host: $host" "$base/wp-login.php"

if ! curl -fsS -H "Host: $host" "$base/wp-admin/install.php" | grep -q 'Already Installed'; then
	curl -fsS -H "Host: $host" -o /dev/null "$base/wp-admin/install.php?step=2" \
		--data-urlencode "weblog_title=Amber Test Blog" --data-urlencode "user_name=admin" \
		--data-urlencode "admin_password=Amber-admin-2026" --data-urlencode "admin_password2=Amber-admin-2026" \
		--data-urlencode "pw_weak=1" --data-urlencode "admin_email=admin@blog.amber.test" \
		--data-urlencode "blog_public=1" --data-urlencode "language="
	mkdir -p "$dir/img"
	for i in $(seq 1 12); do
		[[ -f $dir/img/plate-$i.jpg ]] || /usr/bin/convert-im6.q16 -seed "$((100 + i))" -size 800x600 plasma:fractal "$dir/img/plate-$i.jpg"
	done
	HTTP_HOST=$host php "$here/wpcontent.php" "$here/gentext.php" "$dir/img" "$posts"
	# The rewrite rules again, in a process that starts with the permalinks set: the one that
	# set them registered the category and tag taxonomies without rewriting (as WordPress does
	# with plain permalinks), so their archives (/tag/NAME/) would answer 404.
	flush_rewrite "$dir"
	chown -R www-data: "$dir/wp-content/uploads"
fi
# An install set up before the line above was there has the stale rules: flush them once.
[[ -f $dir/.rewrite-flushed ]] || flush_rewrite "$dir"
echo "WordPress: http://$host/ on 127.0.0.1:$port ($posts posts; stop: $0 stop $dir)"
