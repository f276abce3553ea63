// The layering of src/ holds (.dependency-cruiser.cjs, described in docs/architecture.md): a folder imports only
// folders of lower layers, never one beside it in its layer, type-only imports included. The folder graph is then
// also checked for circles here, from the same cruise, so a rule written too loosely cannot let one in.
import t from 'tap';
import path from 'node:path';
import { ROOT, run } from './helpers/spawn.js';

interface Cruise {
  summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

/** A module's folder under src/, or the file itself for the root files (each root file is its own unit). */
const unitOf = (file: string) => file.split('/').slice(0, 2).join('/');

/** The circles of a directed graph (one per strongly connected component of more than one node). */
function circles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) { component.push(w); if (w === v) break; }
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

t.test('src/ is layered: no folder imports one above or beside it, and no import circle joins folders', async (t) => {
  const cruise = await run(path.join(ROOT, 'node_modules', '.bin', 'depcruise'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { timeoutMs: 120_000 });
  const result = JSON.parse(cruise.stdout) as Cruise;
  t.same(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`), [], 'no import breaks the layering');

  const edges = new Map<string, Set<string>>();
  for (const m of result.modules.filter((m) => m.source.startsWith('src/'))) {
    for (const d of m.dependencies.filter((d) => d.resolved.startsWith('src/'))) {
      const [from, to] = [unitOf(m.source), unitOf(d.resolved)];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  t.ok(edges.get('src/calls')?.has('src/store'), 'the cruise sees type-only imports (src/calls/services.ts imports only types of src/store)');
  t.ok(edges.size >= 20, `the cruise saw the folders of src/ (${edges.size} import others)`);
  t.same(circles(edges), [], 'no circle between folders');
});
