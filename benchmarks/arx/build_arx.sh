#!/usr/bin/env bash
# Build ARX's library (src/main) from a source checkout, with no network, into OUT/lib:
# arx-3.9.2.jar and the jars it runs with, ready for `bench_search.py --arx-classpath 'OUT/lib/*'`.
#
#   bash benchmarks/arx/build_arx.sh ARX_SRC [OUT]      (OUT defaults to ../arx-build)
#
# ARX_SRC is a checkout of arx-deidentifier/arx at tag v3.9.2 with src/main and lib/ant.
# Needs a JDK (javac, jar) and Debian's libpdfbox2-java (ARX's certificate classes compile
# against PDFBox 2; the repository's pdfbox-app jar is stored outside git). hadoop-core is
# also absent: a one-interface stand-in (org.apache.hadoop.io.Writable) is compiled so that
# ARX's classification code compiles; the anonymization path never loads it.
set -euo pipefail
SRC=${1:?usage: build_arx.sh ARX_SRC [OUT]}
OUT=${2:-$(cd "$(dirname "$0")/../../.." && pwd)/arx-build}
PDFBOX=/usr/share/java/pdfbox2.jar
FONTBOX=/usr/share/java/fontbox2.jar
for f in "$SRC/src/main" "$SRC/lib/ant" "$PDFBOX" "$FONTBOX"; do
  [ -e "$f" ] || { echo "error: $f is missing (see the header of this script)" >&2; exit 2; }
done
command -v javac >/dev/null || { echo "error: javac is missing: install a JDK" >&2; exit 2; }
mkdir -p "$OUT/lib" "$OUT/stub-src/org/apache/hadoop/io" "$OUT/stub" "$OUT/classes"
cat > "$OUT/stub-src/org/apache/hadoop/io/Writable.java" <<'EOF'
package org.apache.hadoop.io;
/** Stand-in for hadoop-core's Writable (only ARX's classification code names it). */
public interface Writable {
    void write(java.io.DataOutput out) throws java.io.IOException;
    void readFields(java.io.DataInput in) throws java.io.IOException;
}
EOF
javac -nowarn -source 8 -target 8 -d "$OUT/stub" "$OUT/stub-src/org/apache/hadoop/io/Writable.java"
(cd "$OUT/stub" && jar cf "$OUT/lib/hadoop-writable-stub.jar" .)
# The jars of ARX's build.xml "lib.jars" set that are in the repository (no GUI jars).
JARS=(colt-1.2.0 commons-lang-2.6 commons-lang3-3.12.0 commons-math3-3.6.1 commons-io-2.4
      commons-validator-1.4.1 objectselector-0.1-lib hppc-0.6.0 univocity-parsers-2.8.4
      newtonraphson-0.0.1 jhpl-0.0.1 mahout-core-0.9 mahout-math-0.11.1 guava-18.0
      slf4j-api-1.7.13 exp4j-0.4.8 smile-1.3.1-java7 log4j-api-2.17.2 log4j-core-2.17.2
      log4j-1.2-api-2.17.2 commons-codec-1.5 commons-logging-1.1 dom4j-1.6.1 stax-api-1.0.1
      xmlbeans-2.3.0 poi-3.10-FINAL-20140208 poi-ooxml-3.10-FINAL-20140208 pdfbox-layout)
for j in "${JARS[@]}"; do
  found=$(find "$SRC/lib/ant" -name "$j.jar" -size +1k | head -1)
  [ -n "$found" ] && cp "$found" "$OUT/lib/" || echo "note: $j.jar not found, skipped"
done
find "$SRC/src/main" -name '*.java' > "$OUT/sources.txt"
javac -nowarn -encoding UTF-8 -source 8 -target 8 -d "$OUT/classes" \
  -cp "$OUT/lib/*:$PDFBOX:$FONTBOX" @"$OUT/sources.txt" 2>&1 | grep -v '^Note:\|^warning:' || true
(cd "$SRC/src/main" && find . -type f ! -name '*.java' -exec cp --parents {} "$OUT/classes/" \;)
[ -f "$OUT/classes/org/deidentifier/arx/ARXAnonymizer.class" ] || { echo "error: ARX did not compile" >&2; exit 1; }
jar cf "$OUT/lib/arx-3.9.2.jar" -C "$OUT/classes" .
echo "built $OUT/lib/arx-3.9.2.jar; run: python benchmarks/bench_search.py --arx-classpath '$OUT/lib/*'"
