/**
 * Syntax colours for snippet bodies. The body is split into tokens of plain text, each
 * rendered as a text node in a span: the markup of an html snippet is shown, never rendered.
 */
export interface Token {
  kind: 'plain' | 'keyword' | 'string' | 'number' | 'comment' | 'tag' | 'attr' | 'key' | 'literal' | 'punct';
  text: string;
}

type Rule = [Token['kind'], RegExp];

const SQL_KEYWORDS =
  'select|from|where|and|or|not|insert|into|values|update|set|delete|create|table|index|view|drop|alter|add|column|primary|key|foreign|references|join|left|right|inner|outer|full|cross|on|as|group|by|order|having|limit|offset|union|all|distinct|case|when|then|else|end|is|null|in|exists|between|like|ilike|with|returning|default|constraint|unique|check|asc|desc|begin|commit|rollback|true|false|coalesce|count|sum|avg|min|max|over|partition|lateral|using|if';

const RULES: Record<'sql' | 'json' | 'html', Rule[]> = {
  sql: [
    ['comment', /--[^\n]*|\/\*[\s\S]*?\*\//y],
    ['string', /'(?:[^']|'')*'?/y],
    ['key', /"(?:[^"]|"")*"?/y],
    ['number', /\b\d+(?:\.\d+)?\b/y],
    ['keyword', new RegExp(`\\b(?:${SQL_KEYWORDS})\\b`, 'iy')],
    ['punct', /[(),;.*=<>!+-]/y],
  ],
  json: [
    ['key', /"(?:[^"\\\n]|\\.)*"(?=\s*:)/y],
    ['string', /"(?:[^"\\\n]|\\.)*"?/y],
    ['number', /-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/y],
    ['literal', /\b(?:true|false|null)\b/y],
    ['punct', /[{}[\],:]/y],
  ],
  html: [
    ['comment', /<!--[\s\S]*?(?:-->|$)/y],
    ['tag', /<\/?[A-Za-z][\w:-]*|\/?>/y],
    ['string', /"[^"]*"?|'[^']*'?/y],
    ['attr', /\b[A-Za-z_:][\w:.-]*(?==)/y],
    ['punct', /=/y],
  ],
};

export function highlight(type: string, text: string): Token[] {
  const rules = RULES[type as keyof typeof RULES];
  if (!rules || text.length > 200_000) return [{ kind: 'plain', text }];
  const out: Token[] = [];
  let plain = '';
  let i = 0;
  outer: while (i < text.length) {
    for (const [kind, re] of rules) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (m && m[0].length > 0) {
        if (plain) out.push({ kind: 'plain', text: plain });
        plain = '';
        out.push({ kind, text: m[0] });
        i += m[0].length;
        continue outer;
      }
    }
    plain += text[i];
    i++;
  }
  if (plain) out.push({ kind: 'plain', text: plain });
  return out;
}
