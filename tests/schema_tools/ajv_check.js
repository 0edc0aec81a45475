// Compile the project's JSON Schemas with ajv (draft 2020-12, strict mode) and validate documents against them.
// Usage: node ajv_check.js CASES.json, with NODE_PATH naming the node_modules that hold ajv. CASES.json is
// {"schemas": [schema, ...], "cases": [{"id": "$id of a schema", "part": "a $defs entry or null", "doc": ...}]}.
// Prints {"compiled": [$id, ...], "results": [{"valid": bool, "error": "the first error, in ajv's words"}]}.
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// strict: every strict option of ajv (strictSchema, strictNumbers, strictTypes, strictTuples, strictRequired)
const ajv = new Ajv2020({ strict: true });
const compiled = [];
for (const schema of input.schemas) {
  ajv.compile(schema);  // throws, naming the keyword, on anything strict mode refuses
  compiled.push(schema.$id);
}
const results = input.cases.map(({ id, part, doc }) => {
  const validate = ajv.getSchema(part ? `${id}#/$defs/${part}` : id);
  const valid = validate(doc);
  const error = valid ? null : `${validate.errors[0].instancePath} ${validate.errors[0].message}`;
  return { valid, error };
});
process.stdout.write(JSON.stringify({ compiled, results }));
