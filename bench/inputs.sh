# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# bench/inputs.sh: the inputs of bench/run.sh's workloads that do not come with the tree,
# sourced by run.sh and table.sh (ROOT is the tree). Each prepare_* function makes one input
# once under build/bench/inputs/NAME, complete or not at all, with a file "origin" there that
# says where it came from (the table's header quotes it), and prints the directory.
# Sourced by rolling.sh and idle.sh too, for the javac corpus and a process's CPU time.
#
#   rhino         Debian's rhino package (/usr/share/java/js.jar)
#   ant           Debian's ant package, and a corpus of ~100 files made by gen-corpus
#   commons-lang  the sources of Debian's libcommons-lang3-java: `apt-get source` through a
#                 private apt configuration under build/bench/apt (the deb-src twin of the
#                 machine's own sources; /etc/apt is not touched, root is not needed)
#   java.time     java.base/java/time of the JDK's lib/src.zip; when the JDK has none (Debian's
#                 OpenJDK ships it in openjdk-N-source, which would upgrade the JDK to install),
#                 the src.zip of that package, fetched with `apt-get download` and unpacked here
INPUTS=$ROOT/build/bench/inputs
RHINO_JAR=/usr/share/java/js.jar
ANT_LIB=/usr/share/ant/lib

# missing_packages WORKLOAD...: the Debian packages those workloads need that are not installed.
missing_packages() {
  local w miss=""
  for w; do
    case "$w" in
      rhino) [[ -r $RHINO_JAR ]] || miss+=" rhino" ;;
      ant) [[ -r $ANT_LIB/ant.jar && -r $ANT_LIB/ant-launcher.jar ]] || miss+=" ant" ;;
      commons-lang) command -v dpkg-source >/dev/null || miss+=" dpkg-dev" ;;
      java.time) command -v unzip >/dev/null || miss+=" unzip" ;;
    esac
  done
  echo "$miss" | tr ' ' '\n' | sort -u | xargs
}

# input_done NAME: true when build/bench/inputs/NAME is complete (and prints it).
input_done() {
  [[ -f "$INPUTS/$1/.complete" ]] && echo "$INPUTS/$1"
}

# input_commit NAME TMPDIR: TMPDIR becomes build/bench/inputs/NAME; prints it.
input_commit() {
  touch "$2/.complete"
  rm -rf "${INPUTS:?}/$1" && mv "$2" "$INPUTS/$1" && echo "$INPUTS/$1"
}

# sources_list DIR SUBDIR: DIR/sources.txt lists SUBDIR's .java files, relative to DIR, sorted.
sources_list() {
  (cd "$1" && find "$2" -name '*.java' | LC_ALL=C sort >sources.txt)
  [[ -s "$1/sources.txt" ]]
}

# apt_private ARGS...: apt-get with the deb-src twin of the machine's sources, its lists and
# cache under build/bench/apt (made and updated on first use).
apt_private() {
  local dir=$ROOT/build/bench/apt f
  if [[ ! -f $dir/.updated ]]; then
    mkdir -p "$dir/sources" "$dir/lists/partial" "$dir/cache/archives/partial"
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
      [[ -r $f ]] || continue
      case "$f" in
        *.sources) sed 's/^Types:.*/Types: deb-src/' "$f" >"$dir/sources/$(basename "$f")" ;;
        *) sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >"$dir/sources/$(basename "$f")" ;;
      esac
    done
    apt_private_run "$dir" update >&2 || return 1
    touch "$dir/.updated"
  fi
  apt_private_run "$dir" "$@"
}
apt_private_run() {
  local dir=$1; shift
  apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$dir/sources" \
    -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" "$@"
}

prepare_commons_lang() {
  input_done commons-lang && return 0
  local tmp=$INPUTS/commons-lang.new.$$ src
  echo "bench: fetching the sources of Debian's libcommons-lang3-java (apt-get source)" >&2
  rm -rf "$tmp"; mkdir -p "$tmp/get"
  (cd "$tmp/get" && apt_private source libcommons-lang3-java >&2) || { rm -rf "$tmp"; return 1; }
  src=$(find "$tmp/get" -maxdepth 4 -type d -path '*/src/main/java' | head -n 1)
  [[ -n "$src" ]] || { rm -rf "$tmp"; return 1; }
  mv "$src" "$tmp/java"
  ls "$tmp/get"/*.dsc | sed 's|.*/||; s|\.dsc$||; s|^|Debian source package |' >"$tmp/origin"
  rm -rf "$tmp/get"
  sources_list "$tmp" java || { rm -rf "$tmp"; return 1; }
  input_commit commons-lang "$tmp"
}

# prepare_java_time JDK: the java.time sources for that JDK (each JDK compiles its own).
prepare_java_time() {
  local jdk=$1 name; name=java.time-$(basename "$jdk")
  input_done "$name" && return 0
  local tmp=$INPUTS/$name.new.$$ zip=$jdk/lib/src.zip origin
  rm -rf "$tmp"; mkdir -p "$tmp"
  origin="$zip"
  if [[ ! -r $zip ]]; then
    local major version pkg pick
    major=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    version=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')
    pkg=openjdk-$major-source
    # Only the sources of this very version compile against its java.base (17.0.21's
    # java.time calls a method 17.0.15 lacks).
    pick=$(apt-cache madison "$pkg" 2>/dev/null | awk -F' *[|] *' -v v="$version" '{ u = $2; sub(/[+~-].*/, "", u) } u == v { print $2; exit }')
    if [[ -z "$pick" ]]; then
      echo "$jdk has no lib/src.zip and Debian has no $pkg of its version $version ($(apt-cache madison "$pkg" 2>/dev/null | awk -F' *[|] *' '{ print $2 }' | xargs | sed 's/ /, /g'))" >&2
      rm -rf "$tmp"; return 1
    fi
    echo "bench: $jdk has no lib/src.zip: fetching $pkg=$pick (apt-get download, not installed)" >&2
    (cd "$tmp" && apt-get -q download "$pkg=$pick" >&2) || { rm -rf "$tmp"; return 1; }
    dpkg-deb -x "$tmp"/*.deb "$tmp/deb" || { rm -rf "$tmp"; return 1; }
    zip=$(find "$tmp/deb" -name src.zip | head -n 1)
    origin="src.zip of $(ls "$tmp"/*.deb | sed 's|.*/||')"
  fi
  unzip -q "$zip" 'java.base/java/time/*' -d "$tmp" || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp/deb" "$tmp"/*.deb
  echo "$origin" >"$tmp/origin"
  sources_list "$tmp" java.base || { rm -rf "$tmp"; return 1; }
  input_commit "$name" "$tmp"
}

# prepare_ant GEN_CORPUS: bench/ant/build.xml beside a 5-package corpus (96 files).
prepare_ant() {
  local gen=$1 dir=$INPUTS/ant
  if [[ -f $dir/.complete && ! $gen -nt $dir/.complete && ! $ROOT/bench/ant/build.xml -nt $dir/.complete ]]; then
    echo "$dir"; return 0
  fi
  local tmp=$INPUTS/ant.new.$$
  mkdir -p "$INPUTS" && rm -rf "$tmp"
  "$gen" "$tmp" 5 >/dev/null && cp "$ROOT/bench/ant/build.xml" "$tmp/" || { rm -rf "$tmp"; return 1; }
  echo "bench/ant/build.xml over gen-corpus with 5 packages" >"$tmp/origin"
  input_commit ant "$tmp"
}

# prepare_javac_corpus: the generated corpus javac compiles in the javac workloads
# (build/bench/corpus, as bench/run.sh makes it), made when missing; prints its folder.
prepare_javac_corpus() {
  local corpus=$ROOT/build/bench/corpus
  if [[ ! -f "$corpus/.complete" ]]; then
    mkdir -p "$ROOT/build/bench"
    gcc -std=c11 -D_GNU_SOURCE -O2 -o "$ROOT/build/bench/gen-corpus" "$ROOT/bench/gen-corpus.c" >&2 || return 1
    rm -rf "$corpus" && "$ROOT/build/bench/gen-corpus" "$corpus" >/dev/null && touch "$corpus/.complete" || return 1
  fi
  echo "$corpus"
}

# cpu_ticks PID: the process's CPU time so far (user + system), in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
