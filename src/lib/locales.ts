// The languages the service speaks (spec 4.1: registration `locale`), in one list: account mails,
// profile and registration validation and the mail templates all take their locales from here.
export const LOCALES = ['de', 'en', 'es', 'fr', 'it', 'nl', 'pt'] as const;
export type Locale = (typeof LOCALES)[number];

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
