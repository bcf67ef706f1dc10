// Profile endpoints (spec 4.2).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { ProfilePatch, ProfileSchema } from './schemas.ts';
import { getProfile, patchProfile } from './service.ts';

export default function profileModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['profile'], security: bearerSecurity };
  const unauthorised = { 401: TokenErrorSchema.or(DetailCodeSchema) };

  for (const path of ['/v1/users/profile/', '/v1/users/profile/me/']) {
    r.get(
      path,
      {
        schema: { ...common, summary: 'The signed-in patient’s profile', response: { 200: ProfileSchema, ...unauthorised } },
      },
      async (request) => getProfile(deps, currentUser(request).id),
    );
  }

  r.patch(
    '/v1/users/profile/me/',
    {
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
