# common.sh: shared by the platform scripts (sourced). A platform is served by its own nginx and
# php-fpm, started from configuration files in its directory, listening on 127.0.0.1 only; the
# system's services are not touched.

set -euo pipefail

# need_packages installs the Debian packages given that are missing.
need_packages() {
	local missing=()
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if ((${#missing[@]})); then
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
	fi
}

# start_php DIR: php-fpm with one pool on the socket DIR/php.sock, pid in DIR/php-fpm.pid.
# EXTRA_ENV may hold "env[NAME] = value" lines for the pool.
start_php() {
	local dir=$1
	cat >"$dir/php-fpm.conf" <<CONF
[global]
pid = $dir/php-fpm.pid
error_log = $dir/php-fpm.log
daemonize = yes
[www]
user = www-data
group = www-data
listen = $dir/php.sock
listen.owner = www-data
listen.group = www-data
listen.mode = 0660
pm = static
pm.max_children = 4
clear_env = no
php_admin_value[error_log] = $dir/php-errors.log
php_admin_value[upload_max_filesize] = 20M
php_admin_value[post_max_size] = 20M
${EXTRA_ENV:-}
CONF
	stop_pid "$dir/php-fpm.pid"
	/usr/sbin/php-fpm8.2 -y "$dir/php-fpm.conf"
}

# start_nginx DIR PORT ROOT SERVERCONF: nginx on 127.0.0.1:PORT serving ROOT, with the server
# block's further lines SERVERCONF, pid in DIR/nginx.pid.
start_nginx() {
	local dir=$1 port=$2 root=$3 extra=$4
	mkdir -p "$dir/nginx-tmp"
	cat >"$dir/nginx.conf" <<CONF
user www-data;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log $dir/access.log;
	client_body_temp_path $dir/nginx-tmp/body;
	fastcgi_temp_path $dir/nginx-tmp/fastcgi;
	proxy_temp_path $dir/nginx-tmp/proxy;
	uwsgi_temp_path $dir/nginx-tmp/uwsgi;
	scgi_temp_path $dir/nginx-tmp/scgi;
	client_max_body_size 20m;
	server {
		listen 127.0.0.1:$port;
		root $root;
		index index.php index.html;
$extra
	}
}
CONF
	stop_pid "$dir/nginx.pid"
	/usr/sbin/nginx -c "$dir/nginx.conf" -p "$dir" -g 'daemon on;'
}

# stop_pid FILE: stops the process whose pid FILE holds, if it runs.
stop_pid() {
	local f=$1
	if [[ -f $f ]]; then
		local pid
		pid=$(cat "$f")
		if kill "$pid" 2>/dev/null; then
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		fi
		rm -f "$f"
	fi
}

# wait_http URL: waits until URL answers.
wait_http() {
	for _ in $(seq 100); do
		curl -fsS -o /dev/null "$@" && return 0
		sleep 0.2
	done
	echo "no answer from $*" >&2
	return 1
}
