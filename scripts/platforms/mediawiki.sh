#!/usr/bin/env bash
# mediawiki.sh: a default MediaWiki install (Debian's package, 1.39 on bookworm) with
# generated articles, served by nginx and php-fpm on 127.0.0.1, to crawl with amber.
#
#   scripts/platforms/mediawiki.sh DIR PORT [ARTICLES]   set up (once) and serve the wiki
#   scripts/platforms/mediawiki.sh stop DIR              stop its nginx and php-fpm
#
# The wiki's address is http://wiki.amber.test/ (port 80 in every URL it writes); reach it with
# `amber crawl --allow-private --connect-to wiki.amber.test:80:127.0.0.1:PORT`. It has ARTICLES
# articles (default 150) of generated prose (gentext.php), each in one or two of 10 categories
# (whose pages are written too), linking to 3-6 other articles; every fourth shows one of 12
# uploaded images as a thumbnail. The Main Page links to the categories and a few articles.
# The database is sqlite, in DIR/data; uploads in DIR/images; logs in DIR. Needs root (apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

if [[ ${1:-} == stop ]]; then
	stop_pid "$2/nginx.pid"
	stop_pid "$2/php-fpm.pid"
	exit 0
fi
dir=$(mkdir -p "$1" && cd "$1" && pwd)
port=$2
articles=${3:-150}
host=wiki.amber.test
mw=/usr/share/mediawiki

need_packages mediawiki nginx php-fpm php-sqlite3 php-intl php-mbstring php-xml imagemagick curl
export MW_CONFIG_FILE=$dir/LocalSettings.php

if [[ ! -f $dir/LocalSettings.php ]]; then
	rm -rf "$dir/data" "$dir/images" "$dir/pages" "$dir/img"
	mkdir -p "$dir/data" "$dir/images" "$dir/pages" "$dir/img"
	php $mw/maintenance/install.php --dbtype sqlite --dbpath "$dir/data" --dbname wiki \
		--server "http://$host" --scriptpath "" --confpath "$dir" --lang en \
		--pass 'Amber-admin-2026' "Amber Test Wiki" Admin
	cat >>"$dir/LocalSettings.php" <<CONF

# scripts/platforms/mediawiki.sh: uploads in this directory, thumbnails by ImageMagick.
\$wgEnableUploads = true;
\$wgUploadDirectory = "$dir/images";
\$wgUploadPath = "/images";
\$wgUseImageMagick = true;
\$wgImageMagickConvertCommand = "/usr/bin/convert-im6.q16";
CONF
	chown -R www-data: "$dir/data" "$dir/images"

	# 12 images: ImageMagick plasma fractals, seeded (the same on every run).
	for i in $(seq 1 12); do
		/usr/bin/convert-im6.q16 -seed "$i" -size 640x480 plasma:fractal "$dir/img/Plate_$i.jpg"
	done
	php $mw/maintenance/importImages.php --comment "Plate for the generated articles" \
		--extensions jpg "$dir/img"

	mapfile -t titles < <(php "$here/gentext.php" titles "$articles")
	cats=(Harbours Rivers Mountains Villages Buildings Railways Monasteries Gardens Islands Industry)
	for ((c = 0; c < ${#cats[@]}; c++)); do
		{
			echo "Articles about ${cats[c],,}, from the generated corpus of the Amber Test Wiki."
			echo
			php "$here/gentext.php" text $((9000 + c)) 60
		} >"$dir/pages/Category:${cats[c]}"
	done
	for ((i = 0; i < articles; i++)); do
		f="$dir/pages/${titles[i]}"
		{
			if ((i % 4 == 0)); then
				echo "[[File:Plate_$((i / 4 % 12 + 1)).jpg|thumb|right|Plate $((i / 4 % 12 + 1)) of the corpus]]"
			fi
			php "$here/gentext.php" text $((i + 1)) $((150 + (i * 37) % 500)) |
				awk -v a="${titles[(i + 1) % articles]}" -v b="${titles[(i * 7 + 3) % articles]}" \
					-v c="${titles[(i * 13 + 5) % articles]}" -v d="${titles[(i + articles - 1) % articles]}" '
				{ print }
				END {
					print ""
					print "== See also =="
					print "* [[" a "]]"
					print "* [[" b "]]"
					print "* [[" c "]]"
					print "* [[" d "]]"
				}'
			echo
			echo "[[Category:${cats[i % 10]}]]"
			if ((i % 3 == 0)); then echo "[[Category:${cats[(i * 3 + 1) % 10]}]]"; fi
		} >"$f"
	done
	(cd "$dir/pages" && php $mw/maintenance/importTextFiles.php --rc -s "Generated article" -u Admin ./*)
	{
		echo "Welcome to the '''Amber Test Wiki''', a default MediaWiki install with generated articles."
		echo
		echo "== Categories =="
		for c in "${cats[@]}"; do echo "* [[:Category:$c]]"; done
		echo
		echo "== Featured articles =="
		for ((i = 0; i < 10 && i < articles; i++)); do echo "* [[${titles[i * 7 % articles]}]]"; done
	} | php $mw/maintenance/edit.php -u Admin -s "Main page of the test wiki" "Main Page"
	php $mw/maintenance/runJobs.php >/dev/null
	chown -R www-data: "$dir/data" "$dir/images"
fi

EXTRA_ENV="env[MW_CONFIG_FILE] = $dir/LocalSettings.php" start_php "$dir"
start_nginx "$dir" "$port" "$mw" "
		location / { try_files \$uri \$uri/ /index.php\$is_args\$args; }
		location /images/ { alias $dir/images/; }
		location ~ ^/images/deleted/ { deny all; }
		location ~ \.php\$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
			fastcgi_pass unix:$dir/php.sock;
		}"
wait_http -H "Host: $host" "http://127.0.0.1:$port/index.php"
echo "MediaWiki: http://$host/ on 127.0.0.1:$port ($articles articles; stop: $0 stop $dir)"
