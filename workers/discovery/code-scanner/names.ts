// Agent names from agent constructors: `Agent(name="...")`, `Agent(role="...")` (CrewAI),
// `AssistantAgent("writer", ...)` (AutoGen), `new Agent({ name: '...' })` (Mastra),
// `new ChatCompletionAgent { Name = "..." }` (Semantic Kernel), `create_react_agent(..., name=)`.
// Only top-level arguments count, so a tool's `name=` nested inside the call is not taken
// for the agent's.

export interface NameHit {
  name: string;
  /** Offset in the file text of the matched `name=...`. */
  index: number;
  match: string;
}

// User proxies and human stand-ins are not the agent being registered.
const CONSTRUCTOR = /\b(?:new[ \t]+)?((?:[A-Z]\w*)?Agent|create_react_agent|create_agent|create_supervisor)\b[ \t]*(?:<[^>\n]*>)?\s*([({])/g;
const IGNORED = /UserProxy|Human|Base|Abstract/;
const MAX_CALL = 4000;

// The call's top-level text with the same offsets as the source: what sits inside nested
// brackets is replaced by spaces, strings at the top level stay as they are.
function topLevelArgs(text: string, open: number): string {
  const closing: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  let out = '';
  let quote: string | null = null;
  const end = Math.min(text.length, open + MAX_CALL);
  for (let i = open; i < end; i++) {
    const c = text[i]!;
    if (quote) {
      out += stack.length <= 1 ? c : ' ';
      if (c === '\\') {
        i++;
        out += stack.length <= 1 ? (text[i] ?? '') : ' ';
      } else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    if (closing[c]) stack.push(closing[c]!);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return out + c;
    }
    out += stack.length <= 1 || c === '\n' ? c : ' ';
  }
  return out;
}

const NAME_ARG = /(?:^|[\s,({])(name|Name|role)["']?[ \t]*(?:=|:)[ \t]*(?:>-?[ \t]*)?(["'`])([^"'`\n]{1,120})\2/;
const POSITIONAL = /^\([ \t\n]*(["'])([^"'\n]{1,120})\1/;

export function findAgentNames(text: string): NameHit[] {
  const hits: NameHit[] = [];
  CONSTRUCTOR.lastIndex = 0;
  for (let m = CONSTRUCTOR.exec(text); m; m = CONSTRUCTOR.exec(text)) {
    if (IGNORED.test(m[1]!)) continue;
    let open = m.index + m[0].length - 1;
    // `new Agent({ name: ... })`: the options object is the real argument list.
    const inner = /^\([ \t\n]*\{/.exec(text.slice(open, open + 200));
    if (inner) open += inner[0].length - 1;
    const args = topLevelArgs(text, open);
    const named = NAME_ARG.exec(args);
    if (named) {
      const at = open + named.index + named[0].indexOf(named[1]!);
      hits.push({ name: named[3]!.trim(), index: at, match: text.slice(at, open + named.index + named[0].length) });
      continue;
    }
    // AutoGen names agents positionally; functions such as create_react_agent take a model there.
    const positional = m[1] !== 'Agent' && m[1]!.endsWith('Agent') && !inner ? POSITIONAL.exec(args) : null;
    if (positional) {
      const at = open + positional[0].indexOf(positional[1]!);
      hits.push({ name: positional[2]!, index: at, match: positional[0].slice(positional[0].indexOf(positional[1]!)) });
    }
  }
  return hits.filter((h) => h.name.length > 0 && !/[{}$]/.test(h.name));
}
