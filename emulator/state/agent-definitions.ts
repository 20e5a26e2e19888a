/** Schemas and verification policies of a tenant of the earlier platform (read by the migration). */
export interface AgentDefinitions {
  schemas: Array<Record<string, unknown>>;
  policies: Array<Record<string, unknown>>;
}

/** Anoncreds-era definitions every tenant starts with, so the migration has something to move. */
export function seedAgentDefinitions(tenant: string): AgentDefinitions {
  const issuerDid = `did:sov:${Buffer.from(tenant).toString('hex').slice(0, 22).padEnd(22, '0')}`;
  const employee = {
    name: 'Employee',
    version: '1.0',
    attributeNames: ['givenName', 'familyName', 'jobTitle', 'startDate'],
  };
  const membership = {
    name: 'Membership',
    version: '2.1',
    attributeNames: ['memberId', 'level', 'validUntil'],
  };
  const schemas = [employee, membership].map((schema) => ({
    id: `${issuerDid}:2:${schema.name}:${schema.version}`,
    createdAtUtc: '2023-04-01T09:30:00Z',
    updatedAtUtc: '2023-04-01T09:30:00Z',
    typeName: 'SchemaRecord',
    ...schema,
  }));
  const policies = [
    {
      policyId: `${tenant}-policy-employee`,
      name: 'Employee check',
      version: '1.0',
      attributes: [
        {
          policyName: 'employee',
          attributeNames: ['givenName', 'familyName', 'jobTitle'],
          restrictions: [{ schemaId: schemas[0]?.id, issuerDid }],
        },
      ],
      predicates: [
        {
          policyName: 'tenure',
          attributeName: 'startDate',
          predicateType: '<=',
          predicateValue: 20240101,
          restrictions: [{ issuerDid }],
        },
      ],
      revocationRequirement: { validNow: true },
    },
  ];
  return { schemas, policies };
}
