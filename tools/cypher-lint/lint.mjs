// Neo4j dialect gate: lint Cypher statements with Neo4j's own front end, offline.
//
// Input (stdin): JSON {"statements": [{"name": str, "query": str}], "labels": [...],
//                      "relationshipTypes": [...], "propertyKeys": [...]}
// Output (stdout): JSON [{"name", "errors": [{"message","line","column"}], "warnings": [...]}]
// Parameters ($name) found in a statement are declared, so only real problems are reported.
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const PARAM = /\$([A-Za-z_][A-Za-z0-9_]*)/g;

function readStdin() {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => { data += chunk; });
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

function diagnostic(d) {
  return { message: d.message, line: d.range.start.line + 1, column: d.range.start.character + 1 };
}

const input = JSON.parse(await readStdin());
const base = testData.mockSchema;
const schema = {
  ...base,
  labels: [...(base.labels ?? []), ...(input.labels ?? [])],
  relationshipTypes: [...(base.relationshipTypes ?? []), ...(input.relationshipTypes ?? [])],
  propertyKeys: [...(base.propertyKeys ?? []), ...(input.propertyKeys ?? [])],
  defaultLanguage: 'CYPHER 5',
};

const results = [];
for (const { name, query } of input.statements) {
  const parameters = {};
  for (const m of query.matchAll(PARAM)) parameters[m[1]] = null;
  const { diagnostics } = lintCypherQuery(query, { ...schema, parameters });
  results.push({
    name,
    errors: diagnostics.filter((d) => d.severity === 1).map(diagnostic),
    warnings: diagnostics.filter((d) => d.severity !== 1).map(diagnostic),
  });
}
process.stdout.write(JSON.stringify(results));
