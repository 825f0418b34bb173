/**
 * The shell code an SSH env runs on the remote host (runtime-neutral strings; no `node:` imports):
 *
 * - `AGENT_SCRIPT`: the file helper. One runs per pooled session for as long as the connection
 *   lives, so a file operation costs a line on a pipe, not a new ssh session (whose login shell
 *   may take a tenth of a second to start). It reads one request per line (`_r <id> <function>
 *   <args...>`, every argument single-quoted), runs the function with its output in a temp file,
 *   and answers one line: `<id> ok <base64 of stdout>` or `<id> err <base64 of stderr>`. A payload
 *   (written data) follows its request line on stdin, exactly as many bytes as the request says.
 * - `EXEC_SCRIPT`: the wrapper of one command, run in its own session so that its output streams:
 *   it enters the folder, starts the command as the leader of a new session (so its whole tree
 *   can be signalled), and reports the pid and the exit code on stderr between markers that carry
 *   a random nonce. It raises SHLVL first: bash takes a shell at level 1 with SSH_CLIENT set for
 *   one sshd started, and would run ~/.bashrc a second time (the login shell ran it already, and
 *   the command inherits what it exported). Its \`wait\` keeps quiet: dash reports a waited job
 *   that a signal ended ("Terminated") on stderr, which is not the command's output.
 *
 * Assumes a POSIX shell and GNU coreutils (`stat -c` with `%.9Y`, `realpath -e` and `-m`,
 * `base64 -w0`, `dd iflag=skip_bytes`, `mktemp -p`), checked when the helper starts. Writes and
 * appends land where the path's symlink chain ends (as in the Node env), and parent folders are
 * made with `ENOTDIR` when a file stands in the way; a helper killed mid-write removes its temp
 * file. Errors the helper finds itself are written as errno names (`ENOENT`); the rest are the
 * utilities' own messages in the C locale, which the env maps to error codes.
 */

/** The helper's functions and its read loop. */
export const AGENT_SCRIPT = `
LC_ALL=C; export LC_ALL
M=$(umask)
T=$(mktemp -d "\${TMPDIR:-/tmp}/toolsmith-ssh.XXXXXXXX") || exit 1
O=$T/o; E=$T/e; P=$T/p
_n=
trap 'rm -rf "$T"; [ -z "$_n" ] || rm -f -- "$_n"' EXIT
trap 'exit 1' HUP INT TERM PIPE
_r() {
  _i=$1; shift
  if "$@" >"$O" 2>"$E"; then printf '%s ok ' "$_i"; base64 -w0 <"$O"
  else printf '%s err ' "$_i"; base64 -w0 <"$E"; fi
  printf '\\n'
}
_e() { printf '%s\\n' "$1" >&2; return 1; }
_special() {
  if [ -e "$1" ] && [ ! -f "$1" ] && [ ! -d "$1" ]; then _e "ESPECIAL $(stat -L -c %f -- "$1")"; return 0; fi
  return 1
}
_p() { realpath -e -- "$1"; }
_pm() { realpath -m -- "$1"; }
_x() { [ -e "$1" ] || _e ENOENT; }
_s() { if [ "$1" = 1 ]; then stat -L -c '%f %s %.9Y' -- "$2"; else stat -c '%f %s %.9Y' -- "$2"; fi; }
_l() {
  if [ ! -d "$1" ]; then
    if [ -e "$1" ]; then _e ENOTDIR; else ls -d -- "$1" >/dev/null; _e ENOENT; fi
    return 1
  fi
  find "$1/" -mindepth 1 -maxdepth 1 -printf '%y %P\\0'
}
_c() { _special "$1" && return 1; cat -- "$1"; }
_g() { _special "$1" && return 1; [ -d "$1" ] && { _e EISDIR; return 1; }; dd if="$1" bs=65536 iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none; }
_take() { head -c "$1" >"$P"; [ "$(wc -c <"$P")" -eq "$1" ] || _e EPIPE; }
_mkp() {
  [ -d "$1" ] && return 0
  if [ -e "$1" ] || [ -L "$1" ]; then _e "$2"; return 1; fi
  _u=$(dirname -- "$1")
  while [ ! -e "$_u" ] && [ ! -L "$_u" ]; do _u=$(dirname -- "$_u"); done
  [ -d "$_u" ] || { _e ENOTDIR; return 1; }
  mkdir -p -- "$1"
}
_wt() {
  _t=$1; _wn=0
  while [ -L "$_t" ]; do
    [ "$_wn" -lt 40 ] || { _e ELOOP; return 1; }
    _wl=$(readlink -- "$_t") || return 1
    case $_wl in /*) _t=$_wl ;; *) _t=$(dirname -- "$_t")/$_wl ;; esac
    _wn=$((_wn + 1))
  done
}
_w() {
  _take "$2" || return 1
  _wt "$1" || return 1
  [ -d "$_t" ] && { _e EISDIR; return 1; }
  _special "$_t" && return 1
  _d=$(dirname -- "$_t")
  _mkp "$_d" ENOTDIR || return 1
  _n=$(mktemp "$_d/.toolsmith-XXXXXXXX") || { _n=; return 1; }
  if cat "$P" >"$_n" && { if [ -e "$_t" ]; then chmod --reference="$_t" -- "$_n"; else chmod "$(printf %o $((0666 & ~$M)))" -- "$_n"; fi; } && mv -f -- "$_n" "$_t"; then _n=; return 0; fi
  rm -f -- "$_n"; _n=; return 1
}
_a() {
  _take "$2" || return 1
  _wt "$1" || return 1
  [ -d "$_t" ] && { _e EISDIR; return 1; }
  _special "$_t" && return 1
  _mkp "$(dirname -- "$_t")" ENOTDIR || return 1
  cat "$P" >>"$_t"
}
_m() { mv -f -T -- "$1" "$2"; }
_d() {
  if [ -d "$1" ] && [ ! -L "$1" ]; then
    if [ "$2" = 1 ]; then rm -rf -- "$1"; else rmdir -- "$1"; fi
  else rm -- "$1"; fi
}
_k() { if [ "$2" = 1 ]; then _mkp "$1" EEXIST; else [ -d "$1" ] && [ ! -L "$1" ] || mkdir -- "$1"; fi; }
_tf() { [ -d "$1" ] || mkdir -p -- "$1" || return 1; mktemp -p "$1" --suffix="$3" "$2XXXXXXXXXXXXXXXX"; }
_td() { [ -d "$1" ] || mkdir -p -- "$1" || return 1; mktemp -d -p "$1" "$2XXXXXXXXXXXXXXXX"; }
_q() { printf '' | base64 -w0 >/dev/null 2>&1 || { echo "base64 -w0 (GNU coreutils)"; return; }
  stat -c '%f %.9Y' / >/dev/null 2>&1 || { echo "stat -c (GNU coreutils)"; return; }
  realpath -e / >/dev/null 2>&1 || { echo "realpath -e (GNU coreutils)"; return; }
  find / -maxdepth 0 -printf '' >/dev/null 2>&1 || { echo "find -printf (GNU findutils)"; return; }
  echo ok; }
_y() { command -v "$1" 2>/dev/null || true; }
_h=$(_q)
if [ "$_h" != ok ]; then printf 'toolsmith-ssh unsupported %s\\n' "$_h"; exit 3; fi
printf 'toolsmith-ssh ready %s %s %s %s %s\\n' "$(printf %s "$HOME" | base64 -w0)" "$(_y bash | base64 -w0)" "$(_y setsid | base64 -w0)" "$(_y rg | base64 -w0)" "$( { _y fd; _y fdfind; } | head -n 1 | base64 -w0)"
while IFS= read -r _l; do eval "$_l"; done
`;

/**
 * The wrapper of one command. Arguments: the nonce, the folder, the shell, the command, whether
 * `setsid` is there (1/0), then `env` arguments (`-u NAME`, `NAME=value`).
 */
export const EXEC_SCRIPT = `
n=$1; d=$2; s=$3; c=$4; g=$5; shift 5
SHLVL=$((\${SHLVL:-0} + 1)); export SHLVL
cd -- "$d" 2>/dev/null || { printf '\\036%s:nocwd:0\\n' "$n" >&2; exit 0; }
if [ "$g" = 1 ]; then setsid env "$@" "$s" -c "$c" </dev/null & else env "$@" "$s" -c "$c" </dev/null & fi
p=$!
printf '\\036%s:pid:%s\\n' "$n" "$p" >&2
wait "$p" 2>/dev/null; st=$?
printf '\\036%s:exit:%s\\n' "$n" "$st" >&2
exit "$st"
`;

/**
 * Kill a command's tree: TERM to its process group (it was started with `setsid` where the host
 * has it) and to every descendant `ps` shows, up to the grace period (in 50 ms ticks) for them to
 * go, then KILL, then up to two seconds more. Arguments: the pid, the ticks, and (for a command
 * left running when its connection dropped, killed after the next connect) the wrapper's nonce:
 * the pid is then signalled only while its parent is still the wrapper that carries that nonce,
 * read from /proc (without /proc, nothing is killed), so a pid used again by now is left alone. The group is
 * signalled through the \`kill\` program (\`env kill\`): dash's built-in takes neither \`--\` nor a
 * negative pid.
 */
export const KILL_SCRIPT = `
p=$1; n=$2; w=$3
if [ -n "$w" ]; then
  s=$(cat "/proc/$p/stat" 2>/dev/null) || exit 0
  s=\${s##*) }; set -- $s
  tr '\\0' ' ' <"/proc/$2/cmdline" 2>/dev/null | grep -qF -- "$w" || exit 0
fi
tree() {
  all=$p; cur=$p
  while [ -n "$cur" ]; do
    cur=$(ps -A -o pid= -o ppid= 2>/dev/null | awk -v list=" $cur " 'index(list, " " $2 " ") { printf "%s ", $1 }')
    all="$all $cur"
  done
  echo $all
}
alive() { env kill -0 -- "-$p" 2>/dev/null || kill -0 $(tree) 2>/dev/null; }
signal() { pids=$(tree); env kill -s "$1" -- "-$p" 2>/dev/null; kill -s "$1" $pids 2>/dev/null; }
signal TERM
i=0; while [ "$i" -lt "$n" ] && alive; do sleep 0.05; i=$((i + 1)); done
alive && signal KILL
i=0; while [ "$i" -lt 40 ] && alive; do sleep 0.05; i=$((i + 1)); done
exit 0
`;

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}
