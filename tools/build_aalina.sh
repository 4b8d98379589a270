#!/usr/bin/env bash
# Build Aalina, Joan Sala Soler's Java oware engine, as an external UCI
# opponent for this project.
#
# Usage:
#   tools/build_aalina.sh OWARE_CLONE SAMURAI_CLONE OUT_DIR
#
#   OWARE_CLONE    a git clone of github.com/joansalasoler/oware (the Aalina
#                  engine; checked with commit bb17fec)
#   SAMURAI_CLONE  a git clone of github.com/joansalasoler/samurai (the game
#                  framework it is built on; checked with commit 5f45b1b)
#   OUT_DIR        where the result goes (created if missing)
#
# Aalina and Samurai are GPL-3.0-or-later. Nothing of theirs is shipped with
# this project: this script compiles the user's own clones into OUT_DIR, and
# the result stays under the GPL.
#
# Needs Debian's JDK and jars (no Maven, no network):
#   apt-get install default-jdk-headless libguice-java libguava-java \
#       libatinject-jsr330-api-java libaopalliance-java libpicocli-java \
#       libjline3-java
#   (libjline3-java is optional: without it the interactive `shell` and
#   `match` commands are left out; the UCI service does not need them.)
#
# What it writes:
#   OUT_DIR/oware.jar          engine classes; its manifest puts "." and the
#                              Debian jars in /usr/share/java on the classpath
#   OUT_DIR/oware-roots.bin    openings book  } looked up beside the jar
#   OUT_DIR/oware-leaves.bin   endgames book  }
#   OUT_DIR/oware.properties   engine name/version/author (Maven placeholders
#                              filled in from OWARE_CLONE/pom.xml)
#   OUT_DIR/aalina             wrapper: `OUT_DIR/aalina` starts the UCI service
#                              (same as `java -jar OUT_DIR/oware.jar service`);
#                              extra arguments go to the service command
#                              (--engine, --bias), AALINA_OPTS to the main
#                              command before it (--cache-size=BYTES,
#                              --roots, --leaves), AALINA_JAVA_OPTS to the JVM.
#                              The default hash table is 256 MiB (about
#                              640 MiB resident); AALINA_OPTS=--cache-size=33554432
#                              or `oware.cache-size=33554432` in
#                              OUT_DIR/oware.properties brings it to ~150 MiB.
#   OUT_DIR/BUILD-INFO.txt     commits built, what was left out
#
# What is left out and why: Samurai's pom asks for berkeleydb-je, which Debian
# does not package. Only the opening-book trainer/exporter (Samurai's
# engine/doe package, `book train` and `book export`) and the endgame-table
# generator (Aalina's egtb packages, `egtb ...`) use it, so those classes are
# not compiled, and their two @Command(subcommands = ...) lists are edited in
# the staged copy (never in the clones) so that picocli does not reference
# them. The engine, its books and the `service` command are untouched.
# Debian's picocli (4.6) and jline3 (3.3) are older than the pom's (4.7.6,
# 3.19); they compile and run the service. If jline3 is not installed, the
# interactive `shell` and `match` commands are left out the same way.
#
# Guice: the pom asks for Guice 7, but the sources only use com.google.inject
# annotations, so Debian's Guice 4.2 (no-AOP build) works unchanged.
#
# Run:   OUT_DIR/aalina           then talk UCI on stdin/stdout, e.g.
#        uci / isready / position startpos moves FaBf / go movetime 100
#        (each move is ONE letter: A-F south's houses, a-f north's; the move
#        list is one word, so "FaBf" is four moves. Nothing is reported for
#        a bad list: a malformed one is dropped and the previous position
#        kept; an illegal one is played anyway. Check moves before sending.)
# Rerunning the script overwrites the files above in OUT_DIR.
set -euo pipefail

if [ "$#" -ne 3 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
fi

OWARE_SRC=$(cd "$1" && pwd)
SAMURAI_SRC=$(cd "$2" && pwd)
mkdir -p "$3"
OUT_DIR=$(cd "$3" && pwd)
JAVA_DIR=${JAVA_DIR:-/usr/share/java}

die() { echo "build_aalina: $*" >&2; exit 1; }

for f in "$OWARE_SRC/src/main/java/com/joansala/game/oware/OwareModule.java" \
         "$OWARE_SRC/src/main/resources/oware-roots.bin" \
         "$OWARE_SRC/src/main/resources/oware-leaves.bin" \
         "$OWARE_SRC/src/main/resources/oware.properties"; do
    [ -f "$f" ] || die "$f not found: is $OWARE_SRC a clone of joansalasoler/oware?"
done
[ -f "$SAMURAI_SRC/src/main/java/com/joansala/uci/UCIService.java" ] ||
    die "$SAMURAI_SRC does not look like a clone of joansalasoler/samurai"

command -v javac >/dev/null || die "javac not found (apt-get install default-jdk-headless)"
command -v jar >/dev/null || die "jar not found (apt-get install default-jdk-headless)"
JAVAC_MAJOR=$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')
[ "$JAVAC_MAJOR" -ge 11 ] 2>/dev/null || die "need javac 11 or newer, found: $(javac -version 2>&1)"

# Debian jars: required ones, then jline3 (optional: only the shell uses it).
DEPS=()
need_jar() {
    local j
    for j in "$@"; do
        if [ -f "$JAVA_DIR/$j" ]; then DEPS+=("$JAVA_DIR/$j"); return 0; fi
    done
    return 1
}
need_jar guice-no-aop.jar || die "guice-no-aop.jar missing in $JAVA_DIR (apt-get install libguice-java)"
need_jar guava.jar || die "guava.jar missing in $JAVA_DIR (apt-get install libguava-java)"
need_jar javax.inject.jar atinject-jsr330-api.jar ||
    die "javax.inject missing in $JAVA_DIR (apt-get install libatinject-jsr330-api-java)"
need_jar aopalliance.jar || die "aopalliance.jar missing in $JAVA_DIR (apt-get install libaopalliance-java)"
need_jar picocli.jar || die "picocli.jar missing in $JAVA_DIR (apt-get install libpicocli-java)"
WITH_SHELL=0
if need_jar jline3.jar; then WITH_SHELL=1; fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/build_aalina.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
SRC="$STAGE/src"
mkdir -p "$SRC" "$STAGE/classes"
cp -R "$SAMURAI_SRC/src/main/java/." "$SRC/"
cp -R "$OWARE_SRC/src/main/java/." "$SRC/"

# Leave out what needs berkeleydb-je (see the header).
LEFT_OUT=(
    com/joansala/engine/doe
    com/joansala/cli/book/TrainCommand.java
    com/joansala/cli/book/ExportCommand.java
    com/joansala/game/oware/egtb
    com/joansala/cli/oware/egtb
)
[ "$WITH_SHELL" = 1 ] || LEFT_OUT+=(com/joansala/cli/ShellCommand.java com/joansala/cli/MatchCommand.java)
for p in "${LEFT_OUT[@]}"; do rm -rf "${SRC:?}/$p"; done

# Drop the left-out commands from the picocli subcommand lists. Each edit
# must change the file, or the sources are not the ones this was written for.
patch_out() {  # FILE SED-EXPRESSION...
    local file=$SRC/$1; shift
    local before; before=$(cksum < "$file")
    local e; for e in "$@"; do sed -i -E "$e" "$file"; done
    [ "$(cksum < "$file")" != "$before" ] || die "could not patch $1: sources changed upstream?"
}
patch_out com/joansala/cli/book/BookCommand.java \
    '/^[[:space:]]*(ExportCommand|TrainCommand)\.class,?[[:space:]]*$/d'
patch_out com/joansala/game/oware/OwareModule.java \
    '/^import com\.joansala\.cli\.oware\.egtb\.EGTBCommand;/d' \
    '/^[[:space:]]*EGTBCommand\.class,?[[:space:]]*$/d'
if [ "$WITH_SHELL" = 0 ]; then
    patch_out com/joansala/cli/MainCommand.java \
        '/^[[:space:]]*(ShellCommand|MatchCommand)\.class,?[[:space:]]*$/d'
fi
if grep -rlE 'com\.sleepycat|EGTBCommand|TrainCommand' "$SRC" >/dev/null; then
    die "left-out classes still referenced in: $(grep -rlE 'com\.sleepycat|EGTBCommand|TrainCommand' "$SRC" | tr '\n' ' ')"
fi

CP=$(IFS=:; echo "${DEPS[*]}")
find "$SRC" -name '*.java' | sort > "$STAGE/sources.txt"
echo "build_aalina: compiling $(wc -l < "$STAGE/sources.txt") files" >&2
javac --release 11 -encoding UTF-8 -nowarn -proc:none -J-Xmx512m \
    -cp "$CP" -d "$STAGE/classes" @"$STAGE/sources.txt"

# Manifest: entry point of the upstream assembly, "." (as upstream) plus the
# Debian jars, which the JVM resolves relative to the jar's URL.
{
    echo "Main-Class: com.joansala.game.oware.OwareModule"
    printf 'Class-Path: .'
    for d in "${DEPS[@]}"; do printf ' \n  %s' "$d"; done
    printf '\n'
    echo "Implementation-Title: Aalina (Samurai Oware), built by tools/build_aalina.sh"
    echo "Implementation-Version: $(git -C "$OWARE_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} > "$STAGE/manifest.txt"
rm -f "$OUT_DIR/oware.jar"
jar --create --file "$OUT_DIR/oware.jar" --manifest "$STAGE/manifest.txt" -C "$STAGE/classes" .

cp "$OWARE_SRC/src/main/resources/oware-roots.bin" "$OWARE_SRC/src/main/resources/oware-leaves.bin" "$OUT_DIR/"

# Fill in the Maven placeholders the way maven-resources-plugin would.
pom_value() {  # XPATH-LIKE-NAME DEFAULT
    local v=""
    case "$1" in
        name) v=$(sed -n '/<\/modelVersion>/,/<organization>/s:.*<name>\(.*\)</name>.*:\1:p' "$OWARE_SRC/pom.xml" | head -n1) ;;
        revision) v=$(sed -n 's:.*<revision>\(.*\)</revision>.*:\1:p' "$OWARE_SRC/pom.xml" | head -n1) ;;
        org) v=$(sed -n '/<organization>/,/<\/organization>/s:.*<name>\(.*\)</name>.*:\1:p' "$OWARE_SRC/pom.xml" | head -n1) ;;
    esac
    echo "${v:-$2}"
}
NAME=$(pom_value name "Samurai Oware")
VERSION=$(pom_value revision "2.1.0-SNAPSHOT")
AUTHOR=$(pom_value org "Joan Sala Soler")
sed -e "s|\${project.name}|$NAME|g" \
    -e "s|\${project.version}|$VERSION|g" \
    -e "s|\${project.organization.name}|$AUTHOR|g" \
    "$OWARE_SRC/src/main/resources/oware.properties" > "$OUT_DIR/oware.properties"

cat > "$OUT_DIR/aalina" <<'EOF'
#!/bin/sh
# Starts Aalina's UCI service on stdin/stdout (built by tools/build_aalina.sh).
# Extra arguments go to the `service` command (e.g. --engine, --help);
# AALINA_OPTS to the main command (e.g. --cache-size=33554432, in bytes);
# AALINA_JAVA_OPTS to the JVM.
DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
exec java ${AALINA_JAVA_OPTS:-} -jar "$DIR/oware.jar" ${AALINA_OPTS:-} service "$@"
EOF
chmod +x "$OUT_DIR/aalina"

{
    echo "Aalina built by tools/build_aalina.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "oware:   $OWARE_SRC @ $(git -C "$OWARE_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "samurai: $SAMURAI_SRC @ $(git -C "$SAMURAI_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "javac:   $(javac -version 2>&1) --release 11"
    echo "jars:    ${DEPS[*]}"
    echo "left out (need berkeleydb-je or missing jline3): ${LEFT_OUT[*]}"
    echo "License: GPL-3.0-or-later (see COPYING in the clones)"
} > "$OUT_DIR/BUILD-INFO.txt"

echo "build_aalina: wrote $OUT_DIR/oware.jar; run $OUT_DIR/aalina" >&2
