#!/usr/bin/env bash
# kg-policy.sh: which pages may feed Kurate's knowledge graph, from the shell.
# A thin client of the REST API under /admin/kg-policy. Needs only bash, curl and awk (no jq, python or node):
# list endpoints answer `Accept: text/tab-separated-values`, which awk turns into tables.
set -uo pipefail

PROG=${0##*/}
URL=${KURATE_URL:-http://localhost:3000}
URL=${URL%/}
JSON=false

usage() {
  cat <<EOF
Usage: $PROG [--json] <command> [arguments]

Decide which pages Kurate's extractor may read (per cluster; the default is exclude).

Commands:
  list                                      every cluster: pages, excluded pages, policy, reason, who, when, staleness
  set <cluster> include|exclude --reason R  set a cluster's policy (its pages are reconciled at once)
  clear <cluster> --reason R                remove a cluster's own policy (its parent's, or the default, applies)
  explain <page>                            why a page (by slug) is in or out
  pending                                   clusters named by pages that no policy covers yet
  review                                    policies not reviewed for KURATE_POLICY_REVIEW_DAYS (stale)
  mark-reviewed <cluster> [--note N]        mark a policy as reviewed
  audit [--cluster C] [--limit N]           the policy audit trail, newest first
  estimate <cluster> include|exclude|clear  what a change would hide or reveal (changes nothing)
  purge <cluster> [--confirm]               delete what derives only from the cluster's excluded pages;
                                            without --confirm it is a dry run that lists what would go

Options:
  --json      print the server's JSON instead of a table (for scripts)
  -h, --help  this help

A sub-cluster is written parent/child. Environment:
  KURATE_URL    the server (default http://localhost:3000)
  KURATE_TOKEN  an admin's API token (create one at /account/tokens), sent as "Authorization: Bearer"
Exit status: 0 on success, 1 when the server refused or could not be reached, 2 for a usage error.
EOF
}

die() { printf '%s: %s\n' "$PROG" "$1" >&2; exit "${2:-1}"; }
usage_error() { printf '%s: %s\nRun "%s --help" for usage.\n' "$PROG" "$1" "$PROG" >&2; exit 2; }

command -v curl >/dev/null 2>&1 || die "curl is required (apt-get install curl)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kg-policy.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$WORK"' EXIT
# The token goes to curl through a file (mode 600), never on a command line that `ps` would show.
HEADERS="$WORK/headers"
: >"$HEADERS"
chmod 600 "$HEADERS"
if [[ -n ${KURATE_TOKEN:-} ]]; then
  printf 'Authorization: Bearer %s\n' "$KURATE_TOKEN" >"$HEADERS"
fi

# A JSON string literal: backslash, quote and control characters escaped.
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# Percent-encodes every byte except unreserved ASCII (so "work/secret" becomes "work%2Fsecret").
urlencode() {
  local LC_ALL=C s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [a-zA-Z0-9.~_-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

# The "message" of a JSON error body, unescaped (good enough for the one-line reason).
json_message() {
  sed -n 's/.*"message":"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$1" | head -n 1 | sed 's/\\"/"/g; s/\\\\/\\/g'
}

# request METHOD PATH [JSON-BODY] → the response body in $WORK/body; exits with a one-line reason on any failure.
request() {
  local method=$1 path=$2 body=${3:-} accept status curl_status
  if $JSON; then accept='application/json'; else accept='text/tab-separated-values'; fi
  local args=(-sS -X "$method" -H "Accept: $accept" -H "@$HEADERS" -o "$WORK/body" -w '%{http_code}' --connect-timeout 10 --max-time 300)
  if [[ -n $body ]]; then args+=(-H 'Content-Type: application/json' --data-binary "$body"); fi
  status=$(curl "${args[@]}" "$URL$path" 2>"$WORK/curl-error")
  curl_status=$?
  if ((curl_status != 0)); then
    local why
    why=$(sed 's/^curl: ([0-9]*) //' "$WORK/curl-error" | head -n 1)
    die "cannot reach Kurate at $URL (${why:-curl exit $curl_status}); is the server running? (KURATE_URL)"
  fi
  if ((status >= 400)); then
    local message
    message=$(json_message "$WORK/body")
    $JSON && cat "$WORK/body" && echo
    case $status in
      401) die "not authenticated (HTTP 401): ${message:-no valid token}. Set KURATE_TOKEN to an admin's API token." ;;
      403) die "forbidden (HTTP 403): ${message:-this needs an admin}" ;;
      *) die "${message:-the server answered HTTP $status} (HTTP $status)" ;;
    esac
  fi
  if ((status < 200 || status >= 300)); then
    die "unexpected answer from $URL$path (HTTP $status); is KURATE_URL a Kurate server?"
  fi
}

# Prints a TSV (header row first) as an aligned table; \t \n \\ escapes are shown as spaces and backslashes.
table() {
  awk -F '\t' '
    function show(s) { gsub(/\\t|\\n|\\r/, " ", s); gsub(/\\\\/, "\\", s); return s }
    { for (i = 1; i <= NF; i++) { cell[NR, i] = show($i); if (length(cell[NR, i]) > width[i]) width[i] = length(cell[NR, i]) } if (NF > cols) cols = NF; rows = NR }
    END {
      for (r = 1; r <= rows; r++) {
        line = ""
        for (i = 1; i <= cols; i++) {
          text = (r == 1) ? toupper(cell[r, i]) : cell[r, i]
          line = line (i < cols ? sprintf("%-" width[i] "s  ", text) : text)
        }
        sub(/ +$/, "", line); print line
      }
    }' "$1"
}

# The value of a named column in the first data row of a TSV.
field() {
  awk -F '\t' -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i; next } NR == 2 && col { print $col; exit }' "$1"
}

# After set and clear: what the reconciliation did, from the answer's one row.
summary_line() {
  local body="$WORK/body"
  echo "$1 (pages: $(field "$body" pages), excluded: $(field "$body" excluded); newly excluded: $(field "$body" now_excluded), newly included: $(field "$body" now_included))"
}

data_rows() { awk 'END { print NR - 1 }' "$1"; }

output() {  # print JSON as is, or the TSV as a table (with a message when it has no rows)
  if $JSON; then cat "$WORK/body"; echo; return; fi
  if [[ $(data_rows "$WORK/body") -eq 0 ]]; then echo "$1"; else table "$WORK/body"; fi
}

need_cluster() {
  [[ -n ${1:-} && $1 != -* ]] || usage_error "which cluster? (e.g. personal, or work/secret)"
}

# ------------------------------------------------------------------------------------------------------------------

args=()
while (($#)); do
  case $1 in
    --json) JSON=true ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1") ;;
  esac
  shift
done
set -- "${args[@]+"${args[@]}"}"
(($#)) || { usage >&2; exit 2; }
cmd=$1
shift

reason='' note='' cluster_filter='' limit='' confirm=false
positional=()
while (($#)); do
  case $1 in
    --reason) (($# >= 2)) || usage_error "--reason needs a text"; reason=$2; shift ;;
    --reason=*) reason=${1#*=} ;;
    --note) (($# >= 2)) || usage_error "--note needs a text"; note=$2; shift ;;
    --note=*) note=${1#*=} ;;
    --cluster) (($# >= 2)) || usage_error "--cluster needs a name"; cluster_filter=$2; shift ;;
    --cluster=*) cluster_filter=${1#*=} ;;
    --limit) (($# >= 2)) || usage_error "--limit needs a number"; limit=$2; shift ;;
    --limit=*) limit=${1#*=} ;;
    --confirm) confirm=true ;;
    -*) usage_error "unknown option $1" ;;
    *) positional+=("$1") ;;
  esac
  shift
done
set -- "${positional[@]+"${positional[@]}"}"

expect_args() { (($# <= $1 + 1)) || usage_error "too many arguments for $cmd"; }

case $cmd in
  list)
    expect_args 0 "$@"
    request GET /admin/kg-policy/clusters
    output "No cluster yet: add \"cluster: <name>\" to pages' frontmatter."
    ;;

  set)
    need_cluster "${1:-}"
    [[ ${2:-} == include || ${2:-} == exclude ]] || usage_error "set needs include or exclude: $PROG set ${1} include|exclude --reason \"why\""
    [[ -n ${reason//[[:space:]]/} ]] || usage_error "set needs --reason \"why\" (it goes to the audit trail)"
    expect_args 2 "$@"
    request PUT "/admin/kg-policy/clusters/$(urlencode "$1")" "{\"action\":\"$2\",\"reason\":$(json_string "$reason")}"
    if $JSON; then output ''; else
      summary_line "$1: now $2"
    fi
    ;;

  clear)
    need_cluster "${1:-}"
    [[ -n ${reason//[[:space:]]/} ]] || usage_error "clear needs --reason \"why\" (it goes to the audit trail)"
    expect_args 1 "$@"
    request DELETE "/admin/kg-policy/clusters/$(urlencode "$1")" "{\"reason\":$(json_string "$reason")}"
    if $JSON; then output ''; else
      summary_line "$1: policy cleared, now $(field "$WORK/body" action)"
    fi
    ;;

  explain)
    [[ -n ${1:-} ]] || usage_error "which page? give its slug (e.g. meeting-notes)"
    expect_args 1 "$@"
    request GET "/admin/kg-policy/explain/$(urlencode "$1")"
    if $JSON; then output ''; else
      echo "$1: $(field "$WORK/body" explanation | sed 's/\\t/ /g; s/\\n/ /g; s/\\\\/\\/g')"
    fi
    ;;

  pending)
    expect_args 0 "$@"
    request GET /admin/kg-policy/pending
    output "No pending clusters: every cluster named by a page has a policy."
    ;;

  review)
    expect_args 0 "$@"
    request GET '/admin/kg-policy/clusters?stale=true'
    output "No stale policies: every policy was reviewed recently."
    ;;

  mark-reviewed)
    need_cluster "${1:-}"
    expect_args 1 "$@"
    body='{}'
    [[ -n $note ]] && body="{\"note\":$(json_string "$note")}"
    request POST "/admin/kg-policy/clusters/$(urlencode "$1")/review" "$body"
    if $JSON; then output ''; else echo "$1: marked reviewed."; fi
    ;;

  audit)
    expect_args 0 "$@"
    query=''
    [[ -n $cluster_filter ]] && query+="&cluster=$(urlencode "$cluster_filter")"
    if [[ -n $limit ]]; then
      [[ $limit =~ ^[0-9]+$ ]] || usage_error "--limit must be a whole number"
      query+="&limit=$limit"
    fi
    request GET "/admin/kg-policy/audit${query:+?${query#&}}"
    output "The audit trail is empty."
    ;;

  estimate)
    need_cluster "${1:-}"
    [[ ${2:-} =~ ^(include|exclude|clear)$ ]] || usage_error "estimate needs include, exclude or clear: $PROG estimate ${1} exclude"
    expect_args 2 "$@"
    request POST /admin/kg-policy/estimate "{\"cluster\":$(json_string "$1"),\"action\":\"$2\"}"
    output ''
    $JSON || echo "Nothing was changed. To apply: $PROG $([[ $2 == clear ]] && echo "clear $1" || echo "set $1 $2") --reason \"why\""
    ;;

  purge)
    need_cluster "${1:-}"
    expect_args 1 "$@"
    if ! $confirm; then
      request POST "/admin/kg-policy/clusters/$(urlencode "$1")/purge" '{"dryRun":true}'
      output ''
      $JSON || echo "Dry run: nothing was deleted. To delete these rows for good: $PROG purge $1 --confirm"
      exit 0
    fi
    if [[ -t 0 ]]; then
      read -r -p "This deletes for good what derives only from the excluded pages of \"$1\". Type the cluster name to confirm: " typed
      [[ $typed == "$1" ]] || die "not confirmed: nothing was deleted"
    fi
    request POST "/admin/kg-policy/clusters/$(urlencode "$1")/purge" "{\"dryRun\":false,\"confirm\":$(json_string "$1")}"
    output ''
    $JSON || echo "Purged \"$1\"."
    ;;

  *)
    usage_error "unknown command \"$cmd\""
    ;;
esac
