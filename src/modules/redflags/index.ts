// What other modules use of the red-flag desk: the screening every patient free text goes through,
// and the categories of the treatments a patient was prescribed. Only this module writes red_flags.
export { eraseRedFlagsOfAccount, redFlagsOfAccount, screenFreeText, prescribedCategories, type Screening, type RedFlagSource } from './service.ts';
