/**
 * Project config, domains section: the trusted domains redirects may go to, each with the path of
 * its auth handler, and whether localhost is trusted for development (spec section 3, "Domains").
 */
import { z } from 'zod';
import { validateTrustedDomain } from '../validation/urls.js';

export interface DomainConfig {
  domain: string;
  handler_path: string;
}

export interface DomainsConfig {
  allow_localhost: boolean;
  domains: DomainConfig[];
}

export const DEFAULT_DOMAINS_CONFIG: DomainsConfig = {
  allow_localhost: true,
  domains: [],
};

/** A trusted domain as written: the domain is checked by the trusted-domain rules (wildcards included). */
export const domainSchema = z.strictObject({
  domain: z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = validateTrustedDomain(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  handler_path: z
    .string()
    .max(2048)
    .refine((v) => v.startsWith('/'), 'Handler path must start with /'),
});

export const domainsConfigFlagFields = {
  allow_localhost: z.boolean(),
};
