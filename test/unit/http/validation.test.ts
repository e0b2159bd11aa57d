import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, ValidationTypes, validate } from 'class-validator';
import { InvalidInput } from '../../../src/domain/errors';
import { IssueKeyBody } from '../../../src/http/keys-issue-body';
import { PersonChangesDto, UpdatePersonBodyDto } from '../../../src/http/person-changes.dto';
import { PersonFilterDto } from '../../../src/http/person-filter.dto';
import { toValidDto } from '../../../src/http/validation';

const FILTERS: object[] = [
  {},
  { email: 'Ada@Example.org' },
  { email: 'a'.repeat(255) },
  { email: 'a'.repeat(256) },
  { email: '😀'.repeat(255) },
  { email: 'tab\there' },
  { email: 'nul\u0000' },
  { email: '\ud800' },
  { email: 5 },
  { email: null },
  { email: ['a', 'b'] },
  { last_name: 'smi', first_name: 'Ad', chat_id: '12345', member_number: 'M-1' },
  { active: 'yes' },
  { active: 'no' },
  { active: 'maybe' },
  { active: true },
  { has_chat: true, has_planner: false },
  { has_chat: 'true' },
  { has_planner: null },
  { has_chat: 1 },
  { ending_before: '2026-02-30' },
  { last_name: 'x', active: 'yes', has_chat: false, email: 'x@y' },
];

/** The messages toValidDto refuses `plain` with, or null when it accepts it. */
async function refusal(type: new () => object, plain: object): Promise<string[] | null> {
  try {
    await toValidDto(type, plain);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return (error as InvalidInput).messages;
  }
}

describe('toValidDto', () => {
  it.each(FILTERS.map((plain) => [JSON.stringify(plain).slice(0, 60), plain]))(
    "accepts the filter %s exactly when class-validator's validate() does, naming each bad field",
    async (_name, plain) => {
      const errors = await validate(plainToInstance(PersonFilterDto, plain), {
        whitelist: true,
        forbidNonWhitelisted: true,
      });
      const messages = await refusal(PersonFilterDto, plain);
      if (errors.length === 0) expect(messages).toBeNull();
      else expect(messages?.map((message) => message.split(' ')[0])).toEqual(errors.map((e) => e.property));
    },
  );

  it('words a refusal with the field in its API spelling and the outermost rule', async () => {
    expect(await refusal(PersonFilterDto, { email: 5, active: 'maybe' })).toEqual([
      'email must be a string',
      'active must be "yes" or "no"',
    ]);
    expect(await refusal(UpdatePersonBodyDto, { person: { first_name: 7 } })).toEqual([
      'person[first_name] must be a string',
    ]);
    expect(await refusal(IssueKeyBody, { permissions: ['read', 'fly'] })).toEqual([
      'permissions has an unknown permission "fly"',
    ]);
    expect(await refusal(PersonFilterDto, { nickname: 'x' })).toEqual(['unknown key "nickname"']);
  });

  it('runs on DTOs whose rules are all synchronous, as validateSync would skip any other', () => {
    const storage = getMetadataStorage();
    for (const type of [PersonFilterDto, PersonChangesDto, UpdatePersonBodyDto, IssueKeyBody]) {
      const rules = storage.getTargetValidationMetadatas(type, '', true, false);
      expect(rules.length).toBeGreaterThan(0);
      const asynchronous = rules
        .filter((rule) => rule.type === ValidationTypes.CUSTOM_VALIDATION)
        .flatMap((rule) => storage.getTargetValidatorConstraints(rule.constraintCls))
        .filter((constraint) => constraint.async)
        .map((constraint) => `${type.name}: ${constraint.name}`);
      expect(asynchronous).toEqual([]);
    }
  });
});
