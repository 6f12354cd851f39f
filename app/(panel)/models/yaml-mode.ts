import { StreamLanguage } from '@codemirror/language';

// A small YAML highlighter (keys, comments, strings) so schema.yml reads well without another package.
const yamlLang = StreamLanguage.define<{ inValue: boolean }>({
  startState: () => ({ inValue: false }),
  token(stream, state) {
    if (stream.sol()) state.inValue = false;
    if (stream.match(/^\s*#.*/)) return 'comment';
    if (stream.eatSpace()) return null;
    if (!state.inValue && stream.match(/^-?\s*[\w.+-]+(?=\s*:)/)) { return 'propertyName'; }
    if (stream.match(':')) { state.inValue = true; return 'punctuation'; }
    if (stream.match(/^'[^']*'|^"[^"]*"/)) return 'string';
    if (stream.match(/^-?\d+(\.\d+)?\b/)) return 'number';
    stream.next();
    return null;
  },
});

export function yaml() { return yamlLang; }
