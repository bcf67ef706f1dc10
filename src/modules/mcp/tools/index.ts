// The connector's tools, in the order tools/list answers them. A tool is one file here (its
// definition: name, description, scope, input and output schemas, annotations, run); adding one is
// that file and a line below. Scopes and the confirming tools are read from the definitions.
import { getProfileSummaryTool } from './get-profile-summary.ts';
import { listConsultationsTool } from './list-consultations.ts';
import { listPrescriptionsAndOrdersTool } from './list-prescriptions-and-orders.ts';
import { listPaymentsTool } from './list-payments.ts';
import { getSubscriptionsTool } from './get-subscriptions.ts';
import { getMessagesTool } from './get-messages.ts';
import { getJournalTool } from './get-journal.ts';
import { listQuestionnairesTool } from './list-questionnaires.ts';
import { logWeightTool } from './log-weight.ts';
import { logInjectionTool } from './log-injection.ts';
import { addJournalNoteTool } from './add-journal-note.ts';
import { sendMessageTool } from './send-message.ts';
import { getWeightsTool } from './get-weights.ts';
import { getDocumentLinksTool } from './get-document-links.ts';
import { getPrivacyRecordTool } from './get-privacy-record.ts';
import { getHealthSummaryTool } from './get-health-summary.ts';
import { reportSideEffectTool } from './report-side-effect.ts';
import { getQuestionnaireTool } from './get-questionnaire.ts';
import { saveQuestionnaireDraftTool } from './save-questionnaire-draft.ts';
import { submitQuestionnaireTool } from './submit-questionnaire.ts';
import { confirmRenewalTool } from './confirm-renewal.ts';
import type { ToolSpec } from './tool.ts';

export { nextInjectionOn } from './get-journal.ts';
export type { ToolContext, ToolResult, ToolSpec } from './tool.ts';

export const TOOLS: ToolSpec[] = [
  getProfileSummaryTool,
  listConsultationsTool,
  listPrescriptionsAndOrdersTool,
  listPaymentsTool,
  getSubscriptionsTool,
  getMessagesTool,
  getJournalTool,
  listQuestionnairesTool,
  logWeightTool,
  logInjectionTool,
  addJournalNoteTool,
  sendMessageTool,
  getWeightsTool,
  getDocumentLinksTool,
  getPrivacyRecordTool,
  getHealthSummaryTool,
  reportSideEffectTool,
  getQuestionnaireTool,
  saveQuestionnaireDraftTool,
  submitQuestionnaireTool,
  confirmRenewalTool,
];

export const TOOL_SCOPES = new Map(TOOLS.map((t) => [t.name, t.scope]));
/** The tools that submit something behind a confirmation (their call may ask the patient through elicitation). */
export const CONFIRMING_TOOLS = new Set(TOOLS.filter((t) => t.confirms).map((t) => t.name));
