// The layering of src/ (docs/architecture.md), checked by test/architecture.test.ts: a folder imports only
// folders in lower layers (type-only imports included), folders of one layer do not import each other, so no
// import circle can form between folders. Bottom layer first.
const LAYERS = [
  { name: 'base', paths: ['src/(clock|waits|rfc3339|private-files|field-errors|log-redaction|log-pretty|logger)\\.ts'] },
  { name: 'primitives', paths: ['src/crypto/', 'src/names/'] },
  { name: 'network', paths: ['src/net/'] },
  { name: 'settings', paths: ['src/(config|operator-token|ready-line)\\.ts'] },
  { name: 'documents and media', paths: ['src/markup/', 'src/media/'] },
  { name: 'store', paths: ['src/store/'] },
  { name: 'engine and domain records', paths: ['src/engine/', 'src/accounts/', 'src/users/', 'src/org/', 'src/numbers/'] },
  { name: 'domain services', paths: ['src/events/', 'src/trunks/'] },
  { name: 'calls kernel', paths: ['src/calls/'] },
  { name: 'call features', paths: ['src/callbacks/', 'src/acd/', 'src/conferences/', 'src/streams/', 'src/speech/'] },
  { name: 'recovery', paths: ['src/recovery/'] },
  { name: 'flows', paths: ['src/flows/'] },
  { name: 'repositories', paths: ['src/repositories\\.ts'] },
  { name: 'interfaces', paths: ['src/http/', 'src/cli/'] },
  { name: 'composition root', paths: ['src/main\\.ts'] },
];

const pathsOf = (layers) => layers.flatMap((l) => l.paths).map((p) => `^${p}`);
const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-imports-above`,
  comment: `${layer.name} may import only the layers below it`,
  severity: 'error',
  from: { path: pathsOf([layer]) },
  to: { path: pathsOf(LAYERS.slice(i + 1)) },
}));
const sideways = LAYERS.flatMap((layer) => layer.paths.length < 2 ? [] : layer.paths.map((p) => ({
  name: `sibling-import-${p}`,
  comment: `${p} does not import the other parts of its layer (${layer.name})`,
  severity: 'error',
  from: { path: `^${p}` },
  to: { path: layer.paths.filter((q) => q !== p).map((q) => `^${q}`) },
})));
const unplaced = {
  name: 'file-outside-the-layers',
  comment: 'every file of src/ belongs to a layer: place a new folder or root file in LAYERS',
  severity: 'error',
  from: { path: '^src/', pathNot: pathsOf(LAYERS) },
  to: {},
};

module.exports = {
  forbidden: [...upward, ...sideways, unplaced],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
