// The Khronos glTF-Validator (npm package `gltf-validator`) on each file named: one JSON object on stdout,
// file -> the validator's report (issues: numErrors, numWarnings, messages). Found through NODE_PATH
// (tests/test_gltf.py points it at the project-local .tools/gltf-validator/node_modules that .ci/run fills).
const fs = require("fs");
const validator = require("gltf-validator");

(async () => {
  const out = {};
  for (const file of process.argv.slice(2)) {
    const data = new Uint8Array(fs.readFileSync(file));
    out[file] = await validator.validateBytes(data, { maxIssues: 200, format: file.endsWith(".glb") ? "glb" : "gltf" });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + "\n");
  process.exit(1);
});
