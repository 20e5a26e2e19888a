import { convertSchema } from '../../agent-platform/domain/migration/schema-template';

const base = 'https://schema.example/templates/';

describe('convertSchema', () => {
  it('types attributes from safe names, the rest as strings, and flags the credential definition', () => {
    const { template, flags } = convertSchema(
      {
        name: 'Driver License',
        version: '1.2',
        attr_names: ['first_name', 'birthdate', 'age', 'is_organ_donor'],
      },
      { schemaBaseUrl: base },
    );
    expect(template.id).toBe('https://schema.example/templates/Driver%20License/1.2');
    expect(
      Object.fromEntries(
        Object.entries(template.properties).map(([name, property]) => [name, property.type]),
      ),
    ).toEqual({
      first_name: 'string',
      birthdate: 'datetime',
      age: 'number',
      is_organ_donor: 'boolean',
    });
    expect(flags.map((flag) => flag.concept)).toEqual([
      'credential-definition',
      'type-inferred',
      'type-inferred',
      'type-inferred',
    ]);
  });

  it('takes types from the mapping before any guess', () => {
    const { template, flags } = convertSchema(
      { name: 'Member', version: '1', attr_names: ['member_since', 'level'] },
      { schemaBaseUrl: base, mapping: { member_since: 'string', level: 'number' } },
    );
    expect(template.properties.member_since?.type).toBe('string');
    expect(template.properties.level?.type).toBe('number');
    expect(flags.filter((flag) => flag.concept === 'type-inferred')).toEqual([]);
  });

  it('keeps odd and repeated names, reporting them', () => {
    const { template, flags } = convertSchema(
      { name: 'Odd', version: '1', attr_names: ['e-mail address', 'e-mail address'] },
      { schemaBaseUrl: base },
    );
    expect(Object.keys(template.properties)).toEqual(['e-mail address']);
    expect(flags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ attribute: 'e-mail address', concept: 'odd-attribute-name' }),
        expect.objectContaining({ attribute: 'e-mail address', concept: 'duplicate-attribute' }),
      ]),
    );
  });
});
