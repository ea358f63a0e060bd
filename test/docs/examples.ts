// The curl examples of the README and docs/*.md, read from the markdown as a reader sees them.
//
// Conventions the docs follow (README, "Trying the examples"):
// - `$CRM_PROXY_URL`, `$CRM_PROXY_TOKEN` (a Salesforce connection's API token) and
//   `$CRM_PROXY_HS_TOKEN` (a HubSpot connection's) are defined once, by the block marked
//   `<!-- examples: definitions -->`; no other variable names a token or the service.
// - A `# …` comment right after a command shows its answer: `# HTTP/1.1 202 …` its status, `# {…}`
//   or `# […]` its JSON (`…` stands for what varies). Without one, the answer must be 2xx.
//   A ```json block right after a block of one command shows that command's answer.
// - A block that cannot run against the sandboxes (a real CRM account, a file of 10 000 records)
//   is marked `<!-- examples: not run: why -->` on the line before it.
import { readFileSync } from 'node:fs';

export interface Command {
  /** The shell text as written, continuation lines joined. */
  text: string;
  /** The answer the text shows right after it, if any: a status line and/or JSON. */
  status?: number;
  json?: string;
}

export interface Block {
  file: string;
  line: number;
  commands: Command[];
  /** The code of the whole block, as written. */
  code: string;
  notRun?: string;
  definitions: boolean;
}

const FENCE = /^```(\w*)\s*$/;

export function readBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  let lastMarker: { text: string; line: number } | undefined;
  let previousShell: Block | undefined;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const marker = /^<!-- examples: (.*?) -->$/.exec(line.trim());
    if (marker) {
      lastMarker = { text: marker[1] ?? '', line: i };
      i++;
      continue;
    }
    const open = FENCE.exec(line);
    if (!open) {
      if (line.trim() !== '') previousShell = undefined;
      i++;
      continue;
    }
    const lang = open[1] ?? '';
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    const body = lines.slice(start, end);
    const markedHere = lastMarker !== undefined && lastMarker.line === i - 1;
    if (lang === 'json' && previousShell !== undefined) {
      const last = previousShell.commands.at(-1);
      if (last !== undefined && last.json === undefined && previousShell.commands.length === 1) {
        last.json = body.join('\n');
      }
    }
    previousShell = undefined;
    if ((lang === 'sh' || lang === 'bash') && body.some((l) => /^\s*(\w+=\$\()?curl\s/.test(l))) {
      const block: Block = {
        file,
        line: start,
        commands: commandsOf(body),
        code: body.join('\n'),
        definitions: markedHere && lastMarker?.text === 'definitions',
        ...(markedHere && lastMarker?.text.startsWith('not run') ? { notRun: lastMarker.text } : {}),
      };
      blocks.push(block);
      previousShell = block;
    } else if ((lang === 'sh' || lang === 'bash') && markedHere && lastMarker?.text === 'definitions') {
      blocks.push({ file, line: start, commands: [], code: body.join('\n'), definitions: true });
    }
    i = end + 1;
  }
  return blocks;
}

/** Commands and the answers shown after them (`# …` lines). */
function commandsOf(body: string[]): Command[] {
  const out: Command[] = [];
  let current: string[] = [];
  let answer: string[] = [];
  let answering = false;
  const flush = () => {
    if (current.length > 0) out.push(withAnswer(current.join('\n'), answer));
    current = [];
    answer = [];
    answering = false;
  };
  // A command goes on while its last line ends with `\` or a single-quoted string is still open.
  const goesOn = (lines: string[]) =>
    (lines.at(-1) ?? '').endsWith('\\') || (lines.join('\n').match(/'/g) ?? []).length % 2 === 1;
  for (const raw of body) {
    const line = raw.trimEnd();
    if (current.length > 0 && goesOn(current)) {
      current.push(line);
      continue;
    }
    if (line.trim() === '') {
      answering = false;
      continue;
    }
    if (line.trimStart().startsWith('#')) {
      if (answering) answer.push(line.trimStart().replace(/^#\s?/, ''));
      continue;
    }
    flush();
    current.push(line);
    answering = true;
  }
  flush();
  return out;
}

function withAnswer(text: string, answer: string[]): Command {
  const command: Command = { text };
  const status = answer.map((a) => /^HTTP\/[\d.]+ (\d{3})/.exec(a)).find((m) => m !== null);
  if (status) command.status = Number(status[1]);
  const jsonStart = answer.findIndex((a) => a.startsWith('{') || a.startsWith('['));
  if (jsonStart >= 0) command.json = answer.slice(jsonStart).join('\n');
  return command;
}

/** A value shown as `…`: anything. */
const ANY = '\u0000any';

/**
 * The JSON a doc shows, with `…` for what varies: `,…` and `…,` (elided members or items) and a
 * bare `…` item are dropped, `"…": "…"` pairs too; a string holding `…` stays (a prefix).
 */
export function parseShown(text: string): unknown {
  const cleaned = text
    .replace(/"…"\s*:\s*"…"\s*,?/g, '')
    .replace(/:\s*…(?=\s*[,}\]])/g, ':"\\u0000any"')
    .replace(/,\s*…/g, '')
    .replace(/…\s*,/g, '')
    .replace(/([[{])\s*…\s*([\]}])/g, '$1$2')
    .replace(/,\s*([\]}])/g, '$1');
  return JSON.parse(cleaned);
}

/**
 * Problems of `actual` against the shape `shown`: every key shown is present (recursively), each
 * item of an array has the shape of the first item shown, `true`/`false`/`null` are equal, other
 * values have the same type, and a string with `…` starts with what comes before it.
 */
export function shapeProblems(shown: unknown, actual: unknown, path = ''): string[] {
  if (shown === ANY) return [];
  if (shown === null || typeof shown === 'boolean') {
    return actual === shown
      ? []
      : [`${path || '/'}: ${JSON.stringify(actual)} where the docs show ${JSON.stringify(shown)}`];
  }
  if (typeof shown === 'string') {
    if (typeof actual !== 'string') return [`${path || '/'}: not a string`];
    const dots = shown.indexOf('…');
    return dots >= 0 && !actual.startsWith(shown.slice(0, dots))
      ? [`${path || '/'}: "${actual.slice(0, 40)}" does not start with "${shown.slice(0, dots)}"`]
      : [];
  }
  if (typeof shown === 'number') return typeof actual === 'number' ? [] : [`${path || '/'}: not a number`];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path || '/'}: not an array`];
    if (shown.length === 0) return [];
    if (actual.length === 0) return [`${path || '/'}: empty where the docs show items`];
    return actual.flatMap((item, i) =>
      shapeProblems(shown[Math.min(i, shown.length - 1)], item, `${path}/${i}`),
    );
  }
  if (typeof shown === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${path || '/'}: not an object`];
    return Object.entries(shown as Record<string, unknown>).flatMap(([k, v]) =>
      k in (actual as Record<string, unknown>)
        ? shapeProblems(v, (actual as Record<string, unknown>)[k], `${path}/${k}`)
        : [`${path}/${k}: missing`],
    );
  }
  return [];
}
