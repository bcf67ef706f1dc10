// Profile endpoints (spec 4.2).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { ProfilePatch, ProfileSchema } from './schemas.ts';
import { getProfile, patchProfile } from './service.ts';
import { fields } from '../../http/operation.ts';

export default function profileModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['profile'], security: bearerSecurity };
  const unauthorised = { 401: TokenErrorSchema.or(DetailCodeSchema) };

  // The same answer on two paths (the spec names both): one operation each.
  for (const [path, id] of [
    ['/v1/users/profile/', 'getProfile'],
    ['/v1/users/profile/me/', 'getMyProfile'],
  ] as const) {
    r.get(
      path,
      {
        config: { operation: { id, descriptions: { 200: 'The profile' } } },
        schema: { ...common, summary: 'The signed-in patient’s profile', response: { 200: ProfileSchema, ...unauthorised } },
      },
      async (request) => getProfile(deps, currentUser(request).id),
    );
  }

  r.patch(
    '/v1/users/profile/me/',
    {
      config: {
        operation: {
          id: 'updateProfile',
          errors: { 400: [fields] },
          descriptions: { 200: 'The updated profile' },
          requestExample: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' },
        },
      },
      schema: {
        ...common,
        summary: 'Update writable profile fields (partial); read-only fields are ignored',
        description:
          'Writable: first_name, last_name, date_of_birth (18+), gender, country_of_residence (supported ISO alpha-3), timezone (IANA), locale, city, postal_code, issuing_state, document_number, document_type, addresses. Read-only and ignored: id, email, role flags, forms_completed, orders.',
        body: ProfilePatch,
        response: { 200: ProfileSchema, 400: FieldErrorsSchema, ...unauthorised },
      },
    },
    async (request) => patchProfile(deps, currentUser(request).id, request.body),
  );
  return Promise.resolve();
}
