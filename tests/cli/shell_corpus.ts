/**
 * Tricky shell commands and the programs each one runs (every simple command, in source
 * order), or `null` when the text is not a valid bash script. Used to pick the shell
 * parser (tests/cli/shell_parser_choice.ts measures candidates on it) and by the
 * parser's own test.
 *
 * @module
 */

/** One corpus entry. */
export interface CorpusEntry {
  /** The command text. */
  source: string;
  /** The programs it runs, in order; `null` when it cannot be parsed. */
  programs: string[] | null;
}

/** The corpus. */
export const SHELL_CORPUS: readonly CorpusEntry[] = [
  { source: "git status", programs: ["git"] },
  { source: "git status; touch pwned.txt", programs: ["git", "touch"] },
  { source: "git status && touch pwned.txt", programs: ["git", "touch"] },
  { source: "git status || touch pwned.txt", programs: ["git", "touch"] },
  { source: "git log | sh", programs: ["git", "sh"] },
  { source: "git status\ntouch pwned.txt", programs: ["git", "touch"] },
  { source: "git status & touch pwned.txt", programs: ["git", "touch"] },
  { source: "(git status; touch x)", programs: ["git", "touch"] },
  { source: "{ git status; touch x; }", programs: ["git", "touch"] },
  { source: "git log $(touch x)", programs: ["git", "touch"] },
  { source: "git log `touch x`", programs: ["git", "touch"] },
  { source: 'git log "$(touch x)"', programs: ["git", "touch"] },
  { source: "git diff <(touch x)", programs: ["git", "touch"] },
  { source: "echo $(echo $(rm -rf y))", programs: ["echo", "echo", "rm"] },
  { source: "f() { rm -rf /; }; f", programs: ["rm", "f"] },
  { source: "if git status; then rm -rf x; fi", programs: ["git", "rm"] },
  { source: "for f in a b; do rm -r -f $f; done", programs: ["rm"] },
  { source: "while true; do curl x | bash; done", programs: ["true", "curl", "bash"] },
  { source: "case $x in a) rm -Rf a;; esac", programs: ["rm"] },
  { source: "x=$(rm -rf z)", programs: ["rm"] },
  { source: "FOO=1 git status", programs: ["git"] },
  { source: 'r"m" -rf /tmp/x', programs: ["rm"] },
  { source: "'rm' -fr /tmp/x", programs: ["rm"] },
  { source: "\\rm -rf x", programs: ["rm"] },
  { source: "git status > ~/.bashrc", programs: ["git"] },
  { source: "cat <<EOF\n$(rm -rf q)\nEOF", programs: ["cat", "rm"] },
  { source: "[[ -f x ]] && rm --recursive --force x", programs: ["rm"] },
  { source: "echo 'a; rm -rf /' \"b && c\"", programs: ["echo"] },
  { source: "echo a\\;rm", programs: ["echo"] },
  { source: "echo '#' # rm -rf /", programs: ["echo"] },
  { source: "ls && ! rm -rf x", programs: ["ls", "rm"] },
  { source: "time rm -rf x", programs: ["rm"] },
  { source: "coproc rm -rf x", programs: ["rm"] },
  { source: "echo ${x:-$(rm -rf y)}", programs: ["echo", "rm"] },
  { source: "echo $((1 + $(rm -rf y)))", programs: ["echo", "rm"] },
  { source: "a=(one $(rm x)); echo ${a[@]}", programs: ["rm", "echo"] },
  { source: "git status;touch x", programs: ["git", "touch"] },
  { source: "git status|&tee x", programs: ["git", "tee"] },
  { source: "echo $'\\x72m'", programs: ["echo"] },
  { source: "git status; (", programs: null },
  { source: "echo $(", programs: null },
  { source: "echo 'unterminated", programs: null },
  { source: 'echo "unterminated', programs: null },
  { source: "if true; then echo", programs: null },
  { source: "git status )", programs: null },
  { source: "echo `", programs: null },
  { source: "cat <<EOF\nno end", programs: null },
];
