// What the prescription tests share: the seller a signed prescription and its invoice name (the
// settings production refuses to start without), and a German patient with a delivery address.
import { seedPatient, type TestContext } from './harness.ts';

export const PRESCRIPTION_SELLER = { SELLER_NAME: 'Praxis Nord GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' };

export const germanPatient = (ctx: TestContext) =>
  seedPatient(ctx, {
    first_name: 'Jonas',
    last_name: 'Berger',
    date_of_birth: '1980-02-03',
    country_of_residence: 'DEU',
    gender: '0',
    locale: 'de',
    addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }],
  });
