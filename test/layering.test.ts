import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN.md, "Layers point one way": faces → src/operations → src/domain → src/db. Read from
 * the code's own imports (the TypeScript compiler's pre-processor: static, type-only and
 * dynamic imports, and re-exports), over src/, jobs/ and commands/.
 *
 * Where each file stands:
 * - faces: src/http, src/slack, src/mcp, src/cli, src/client (the /v1 client of the CLI and
 *   `tack mcp`), src/queue (the clock that runs jobs/: it reads nothing of the database
 *   itself), src/github, jobs/, commands/. commands/ is the Slack face's slash commands (its
 *   Bolt wiring in src/slack dispatches to them, they render with src/slack's views), so for
 *   cycles src/slack and commands/ are one face.
 * - src/operations, src/domain, src/db: the layers below.
 * - shared: top-level files every layer may read (the environment, the logger, the version,
 *   the vocabularies); they import no face and no operation.
 * - composition: the top-level files that start a process or assemble the app (app.ts,
 *   server.ts, worker.ts, maintenance.ts); they may import anything, and open the database.
 * A file in a folder or at the top that is not placed here fails the test: place it first.
 */

type Layer = 'face' | 'operations' | 'domain' | 'db' | 'shared' | 'composition';

const FOLDERS: Record<string, Layer> = {
  http: 'face',
  slack: 'face',
  mcp: 'face',
  cli: 'face',
  client: 'face',
  queue: 'face',
  github: 'face',
  operations: 'operations',
  domain: 'domain',
  db: 'db',
};

const TOP_FILES: Record<string, Layer> = {
  'config.ts': 'shared',
  'log.ts': 'shared',
  'log-error.ts': 'shared',
  'redis.ts': 'shared',
  'version.ts': 'shared',
  'vocabulary.ts': 'shared',
  'app.ts': 'composition',
  'server.ts': 'composition',
  'worker.ts': 'composition',
  'maintenance.ts': 'composition',
};

/** Packages of the faces' frameworks: the domain imports none of them, ever. */
const FACE_PACKAGES = [/^fastify$/, /^@fastify\//, /^@slack\//, /^bullmq$/, /^commander$/, /^@modelcontextprotocol\//];

/**
 * TEMPORARY: wrong-way imports that the "core" stream (issue 28, items 1 and 2) is removing in
 * parallel: jobs/ and src/slack reading and writing Slack's own tables through src/db, and
 * sign-out's own transaction in src/http/signin.ts. Empty this list when that work is merged;
 * the test fails on an entry that is no longer in the code.
 */
const PENDING_CORE_STREAM: readonly string[] = [];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'jobs', 'commands'];

interface Place {
  layer: Layer;
  /** The top-level part it belongs to, for cycles: `src/http`, `jobs`, `src/config.ts`, … */
  unit: string;
}

interface Import {
  from: string;
  line: number;
  specifier: string;
  /** The file of this tree it names (relative to the root), or undefined for a package. */
  to: string | undefined;
}

function placeOf(file: string): Place {
  if (file.startsWith('jobs/')) return { layer: 'face', unit: 'jobs' };
  if (file.startsWith('commands/')) return { layer: 'face', unit: 'src/slack + commands' };
  const folder = /^src\/([^/]+)\//.exec(file)?.[1];
  if (folder !== undefined) {
    const layer = FOLDERS[folder];
    if (!layer) throw new Error(`${file}: src/${folder}/ is in no layer; place it in FOLDERS of test/layering.test.ts (and DESIGN.md)`);
    return { layer, unit: folder === 'slack' ? 'src/slack + commands' : `src/${folder}` };
  }
  const layer = TOP_FILES[file.slice('src/'.length)];
  if (!layer) throw new Error(`${file} is in no layer; place it in TOP_FILES of test/layering.test.ts (and DESIGN.md)`);
  return { layer, unit: file };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), if it is one of ours. */
function resolve(from: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = base.replace(/\.js$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, `${base}/index.ts`];
  return candidates.find((c) => existsSync(join(ROOT, c)));
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((ref) => {
    const line = text.slice(0, ref.pos).split('\n').length;
    const relative = ref.fileName.startsWith('.');
    return { from: file, line, specifier: ref.fileName, to: relative ? resolve(file, ref.fileName) : undefined };
  });
}

function readGraph(): Import[] {
  return SOURCES.flatMap(sourceFiles).flatMap(importsOf);
}

/** Why an import points the wrong way, or undefined when it may stand. */
function wrongWay(imp: Import): string | undefined {
  const from = placeOf(imp.from);
  if (imp.to === undefined) {
    if (from.layer === 'domain' && FACE_PACKAGES.some((p) => p.test(imp.specifier))) return `the domain imports no face's framework (${imp.specifier})`;
    return undefined;
  }
  if (!SOURCES.some((s) => imp.to!.startsWith(`${s}/`))) return undefined;
  const to = placeOf(imp.to);
  switch (from.layer) {
    case 'face':
      if (to.layer === 'db') return `a face (${from.unit}) never imports src/db: ask the domain or an operation`;
      return undefined;
    case 'operations':
      if (to.layer === 'face' || to.layer === 'composition') return `src/operations imports no face (${to.unit})`;
      return undefined;
    case 'domain':
      if (to.layer === 'face' || to.layer === 'composition') return `the domain imports no face (${to.unit})`;
      if (to.layer === 'operations') return 'the domain never imports src/operations: operations call the domain';
      return undefined;
    case 'db':
      if (to.layer !== 'db' && to.layer !== 'shared') return `src/db imports nothing above it (${to.unit}): the domain reads the database, never the other way`;
      return undefined;
    case 'shared':
      if (to.layer === 'face' || to.layer === 'operations' || to.layer === 'composition') return `a shared top-level file imports no face, operation or composition (${to.unit})`;
      return undefined;
    case 'composition':
      return undefined;
  }
}

const pairOf = (imp: Import) => `${imp.from} -> ${imp.to ?? imp.specifier}`;
const describeImport = (imp: Import, why: string) => `${imp.from}:${imp.line} imports '${imp.specifier}'${imp.to ? ` (${imp.to})` : ''}: ${why}`;

/** Strongly connected groups of more than one unit (Tarjan), each with an import per arrow inside it. */
function unitCycles(imports: readonly Import[]): string[] {
  const arrows = new Map<string, Map<string, Import>>();
  for (const imp of imports) {
    if (imp.to === undefined || !SOURCES.some((s) => imp.to!.startsWith(`${s}/`))) continue;
    const a = placeOf(imp.from).unit;
    const b = placeOf(imp.to).unit;
    if (a === b) continue;
    if (!arrows.has(a)) arrows.set(a, new Map());
    if (!arrows.get(a)!.has(b)) arrows.get(a)!.set(b, imp);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    onStack.add(unit);
    for (const next of arrows.get(unit)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(unit, Math.min(low.get(unit)!, index.get(next)!));
      }
    }
    if (low.get(unit) === index.get(unit)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== unit);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const unit of arrows.keys()) if (!index.has(unit)) visit(unit);
  return groups.map((group) => {
    const ties = group.flatMap((a) => group.filter((b) => arrows.get(a)?.has(b)).map((b) => `  ${a} -> ${b}: ${pairOf(arrows.get(a)!.get(b)!)}`));
    return `cycle between ${group.join(', ')}:\n${ties.join('\n')}`;
  });
}

describe('layers point one way (DESIGN.md)', () => {
  const imports = readGraph();

  it('reads the import graph of src/, jobs/ and commands/, static, type-only and dynamic imports alike', () => {
    const pairs = new Set(imports.map(pairOf));
    // One of each kind, so that a reader that misses a kind fails here rather than passing everything.
    expect(pairs).toContain('src/operations/index.ts -> src/operations/jobs.ts'); // static
    expect(pairs).toContain('src/domain/context.ts -> src/db/connect.ts'); // type-only
    expect(pairs).toContain('src/cli/server-commands.ts -> src/server.ts'); // dynamic import()
    expect(pairs).toContain('src/domain/context.ts -> src/domain/member-schema.ts');
    expect(imports.length).toBeGreaterThan(500);
  });

  it('has no import that points the wrong way', () => {
    const pending = new Set(PENDING_CORE_STREAM);
    const wrong = imports.flatMap((imp) => {
      const why = wrongWay(imp);
      return why === undefined || pending.has(pairOf(imp)) ? [] : [describeImport(imp, why)];
    });
    expect(wrong).toEqual([]);
  });

  it('lists in PENDING_CORE_STREAM only wrong-way imports that are still in the code', () => {
    const stillWrong = new Set(imports.filter((imp) => wrongWay(imp) !== undefined).map(pairOf));
    const gone = PENDING_CORE_STREAM.filter((pair) => !stillWrong.has(pair));
    expect(gone, 'fixed: remove these from PENDING_CORE_STREAM').toEqual([]);
  });

  it('has no import cycle between top-level layers', () => {
    expect(unitCycles(imports)).toEqual([]);
  });
});
