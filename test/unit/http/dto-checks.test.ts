import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsString, Length, ValidateNested, validate } from 'class-validator';
import { passesAllChecks } from '../../../src/http/dto-checks';
import { IssueKeyBody } from '../../../src/http/keys-issue-body';
import { PersonFilterDto } from '../../../src/http/person-filter.dto';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true };

/** What class-validator itself says of the same input. */
async function validateSays(type: new () => object, plain: object): Promise<boolean> {
  return (await validate(plainToInstance(type, plain), OPTIONS)).length === 0;
}

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
  { last_name: 'x', active: 'yes', has_chat: false, email: 'x@y' },
];

describe('passesAllChecks', () => {
  it.each(FILTERS.map((plain) => [JSON.stringify(plain), plain]))(
    'agrees with class-validator on the filter %s',
    async (_name, plain) => {
      const dto = plainToInstance(PersonFilterDto, plain);
      expect(passesAllChecks(PersonFilterDto, dto)).toBe(await validateSays(PersonFilterDto, plain));
    },
  );

  it('never passes a property without rules, which forbidNonWhitelisted refuses', () => {
    const dto = plainToInstance(PersonFilterDto, { email: 'a@b', nickname: 'x' });
    expect(passesAllChecks(PersonFilterDto, dto)).toBe(false);
  });

  it('leaves classes with rules it does not run to class-validator', () => {
    class Inner {
      @IsString()
      name!: string;
    }
    class Outer {
      @ValidateNested()
      inner!: Inner;
    }
    expect(passesAllChecks(Outer, plainToInstance(Outer, { inner: { name: 'x' } }))).toBe(false);
    // `each` rules: IssueKeyBody's permissions.
    expect(passesAllChecks(IssueKeyBody, plainToInstance(IssueKeyBody, {}))).toBe(false);
  });

  it('runs built-in rules with their constraints', async () => {
    class Named {
      @Length(2, 3)
      name!: string;
    }
    for (const name of ['a', 'ab', 'abc', 'abcd']) {
      expect(passesAllChecks(Named, plainToInstance(Named, { name }))).toBe(
        await validateSays(Named, { name }),
      );
    }
  });
});
