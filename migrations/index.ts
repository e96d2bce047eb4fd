// The ordered list of migrations. `npm run migration:generate -- <Name>` appends to it.
import { CreateIdentityContentAndConfiguration1796011461455 } from './1796011461455-create-identity-content-and-configuration';
export const MIGRATIONS: Function[] = [CreateIdentityContentAndConfiguration1796011461455];
