// `X-Brand-Slug` on the unauthenticated account endpoints (spec 4). Sign-in answers a missing or
// wrong brand with its usual non-specific 401; the other endpoints with 400 `invalid_brand`.
import type { FastifyRequest } from 'fastify';
import { fail } from './errors.ts';

export function hasBrand(request: FastifyRequest, brand: string): boolean {
  const value = request.headers['x-brand-slug'];
  return typeof value === 'string' && value === brand;
}

export function requireBrand(request: FastifyRequest, brand: string): void {
  if (!hasBrand(request, brand)) throw fail('invalid_brand');
}

export const BrandHeader = { 'x-brand-slug': { type: 'string', description: 'The brand identifier (BRAND_SLUG)' } };
