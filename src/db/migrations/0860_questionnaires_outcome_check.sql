-- Issue 11: the submission outcome is a closed set (questionnaires/service.ts writes exactly these);
-- the database refuses anything else, like messages.sender_type already does.
alter table questionnaire_submissions
  add constraint questionnaire_submissions_outcome_check
  check (outcome in ('eligible', 'ineligible', 'emergency', 'held_for_review'));
