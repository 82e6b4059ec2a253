// Bodies of the cost endpoints of the api tier: department budgets and operator prices.
import { Type, type Static } from '@sinclair/typebox';

export const BudgetSchema = Type.Object(
  {
    department: Type.String({ minLength: 1, maxLength: 200 }),
    month: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'First day of the month, YYYY-MM-01.' }),
    budget_amount: Type.Number({ minimum: 0, maximum: 1e12, description: 'In the instance display currency.' }),
  },
  { additionalProperties: false, $id: 'DepartmentBudget' },
);
export type Budget = Static<typeof BudgetSchema>;

const PerMillion = Type.Number({ minimum: 0, maximum: 1e6 });

export const PriceOverrideSchema = Type.Object(
  {
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    input: PerMillion,
    output: PerMillion,
    cached_input: Type.Optional(Type.Union([PerMillion, Type.Null()])),
  },
  { additionalProperties: false, $id: 'PriceOverride', description: 'USD per million tokens.' },
);
export type PriceOverride = Static<typeof PriceOverrideSchema>;
