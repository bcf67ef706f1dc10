import { patientSummary, summarySections } from '../../interop/index.ts';
import { appLinks } from '../../../mail/links.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const getHealthSummaryTool = tool({
  name: 'get_health_summary',
  title: 'My health summary',
  description:
    'The patient’s health summary as text: the same content as the FHIR patient summary (International Patient Summary) of the data export: medicines prescribed with their dosage, allergies and conditions the patient reported in questionnaires, body weight, height and BMI, and the consultations.',
  scope: 'patient:read',
  input: s.EmptyIn,
  output: s.HealthSummaryOut,
  readOnly: true,
  async run({ deps, auth }) {
    const bundle = await patientSummary(deps, auth.userId);
    const { title, sections, text } = summarySections(bundle);
    const page = appLinks.account(deps.config);
    const data = {
      generated_at: bundle.timestamp ?? deps.clock.now().toISOString(),
      title,
      sections,
      text,
      note: `The same summary as a FHIR document (application/fhir+json) is in the data export, signed in at ${page}.`,
    };
    return { data, text };
  },
});
