# Reads the fenced code blocks of README.md, as written. Sourced by the README
# and install tests.
#   readme_index FILE           one line per block: <number> TAB <language or -> TAB <## section>
#   readme_block FILE N         the text of block N
#   readme_blocks_in FILE SECTION LANG
#                               the numbers of the blocks of LANG under the heading "## SECTION"
readme_index() {
  awk '/^## / { sec = substr($0, 4) }
       /^```/ { if (inb) { inb = 0; next }
                inb = 1; n++; lang = substr($0, 4); if (lang == "") lang = "-"
                print n "\t" lang "\t" sec; next }' "$1"
}
readme_block() {
  awk -v want="$2" '/^```/ { if (inb) { inb = 0; next } inb = 1; n++; next }
                    inb && n == want { print }' "$1"
}
readme_blocks_in() {
  readme_index "$1" | awk -F'\t' -v sec="$2" -v lang="$3" '$3 == sec && $2 == lang { print $1 }'
}
