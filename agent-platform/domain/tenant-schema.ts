import { z } from 'zod';
import { tenantNameProblem } from './agent-tenants';

/** A tenant name, for the parsers of settings, inputs and the receiver's path (the rule: {@link tenantNameProblem}). */
export const tenantSchema = z.string({ message: 'must be a string' }).superRefine((tenant, context) => {
  const problem = tenantNameProblem(tenant);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});
