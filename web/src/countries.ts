// Countries where the service accepts patients: the service's own catalogue file, read at build time.
import data from '../../catalogue/countries.json';

export const COUNTRIES: { code: string; name: string }[] = data.countries.map((c: { code: string; name: string }) => ({ code: c.code, name: c.name }));
