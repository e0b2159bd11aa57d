import type { ClassConstructor } from 'class-transformer';
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

/** One property's rules: the conditions that decide whether it is checked, then its constraints. */
interface PropertyChecks {
  property: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  constraints: {
    validateIf?: (object: object, value: unknown) => boolean;
    constraints: unknown[];
    validate: (value: unknown, args: ValidationArguments) => unknown;
  }[];
}

type Checks = (dto: object) => boolean;

const compiled = new Map<ClassConstructor<object>, Checks | null>();

/**
 * A DTO class's own class-validator rules (its decorators, the one description of its input),
 * read once and run as a plain loop: the same `validate` functions with the same arguments, in
 * the order class-validator runs them, without its per-call machinery (metadata lookups, an error
 * object per property, promises). Null for a class using anything but conditional and synchronous
 * custom rules (nested objects, `each`, async constraints): class-validator itself checks those.
 */
function compile(type: ClassConstructor<object>): Checks | null {
  const storage = getMetadataStorage();
  // As validate() reads them when called without groups.
  const metadata = storage.getTargetValidationMetadatas(type, '', false, false);
  if (metadata.length === 0) return null;
  const byProperty = new Map<string, PropertyChecks>();
  for (const rule of metadata) {
    let checks = byProperty.get(rule.propertyName);
    if (checks === undefined) {
      checks = { property: rule.propertyName, conditions: [], constraints: [] };
      byProperty.set(rule.propertyName, checks);
    }
    if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      checks.conditions.push(rule.constraints[0] as PropertyChecks['conditions'][number]);
      continue;
    }
    if (rule.type !== ValidationTypes.CUSTOM_VALIDATION || rule.each) return null;
    for (const constraint of storage.getTargetValidatorConstraints(rule.constraintCls)) {
      if (constraint.async) return null;
      const instance = constraint.instance as { validate: PropertyChecks['constraints'][number]['validate'] };
      checks.constraints.push({
        validateIf: rule.validateIf,
        constraints: rule.constraints,
        validate: instance.validate.bind(instance),
      });
    }
  }
  const properties = [...byProperty.values()];
  const known = new Set(byProperty.keys());
  return (dto) => {
    // forbidNonWhitelisted: a property without rules fails validate(), so it fails here.
    for (const key of Object.keys(dto)) if (!known.has(key)) return false;
    const values = dto as Record<string, unknown>;
    for (const { property, conditions, constraints } of properties) {
      const value = values[property];
      if (!conditions.every((condition) => condition(dto, value))) continue;
      for (const constraint of constraints) {
        if (constraint.validateIf !== undefined && !constraint.validateIf(dto, value)) continue;
        const args: ValidationArguments = {
          targetName: type.name,
          property,
          object: dto,
          value,
          constraints: constraint.constraints,
        };
        // A promise (an asynchronous rule after all) is left to class-validator as well.
        if (constraint.validate(value, args) !== true) return false;
      }
    }
    return true;
  };
}

/**
 * Whether `dto` passes every rule of its class; true only when class-validator's validate()
 * (with whitelist and forbidNonWhitelisted) would find nothing. False means "not shown to pass
 * here": the caller then runs validate(), which words the errors. The common case, a valid
 * request, so costs a few function calls instead of a validation run.
 */
export function passesAllChecks<T extends object>(type: ClassConstructor<T>, dto: T): boolean {
  let checks = compiled.get(type);
  if (checks === undefined) {
    checks = compile(type);
    compiled.set(type, checks);
  }
  return checks?.(dto) === true;
}
