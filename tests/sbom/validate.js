// SPDX-License-Identifier: MIT
// validate.js FILE - validate a CycloneDX 1.6 JSON document with the CycloneDX project's own
// JSON schema and strict validator (@cyclonedx/cyclonedx-library, with ajv), as installed by
// `make sbom-validator` (tests/sbom/package.json).  Prints "valid", or the schema errors and
// exits 1.
'use strict';
const fs = require('fs');
const CDX = require('@cyclonedx/cyclonedx-library');

const text = fs.readFileSync(process.argv[2], 'utf8');
new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6).validate(text).then(
  (errors) => {
    if (errors === null) {
      console.log('valid');
    } else {
      console.log(JSON.stringify(errors));
      process.exitCode = 1;
    }
  },
  (e) => {
    console.log(String(e));
    process.exitCode = 2;
  });
