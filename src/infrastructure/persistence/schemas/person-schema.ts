import { EntitySchema } from 'typeorm';

/** A people row. Accounts live here too: a person with a username has login credentials. */
export interface PersonRow {
  id: number;
  role: string;
  firstName: string;
  lastName: string;
  /** foldCase of the name (src/domain/text.ts), written with it: what name searches match. */
  firstNameFolded: string;
  lastNameFolded: string;
  chatId: string | null;
  plannerId: string | null;
  memberNumber: string | null;
  /** Set when the person was erased (SPEC §8); the names then say "erased". */
  erasedAt: Date | null;
  /** The standing the calendar last told or first saw (SPEC §10); never what answers show. */
  standingAnnounced: string | null;
  username: string | null;
  passwordHash: string | null;
  permissions: string[];
  disabled: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export const PersonSchema = new EntitySchema<PersonRow>({
  name: 'Person',
  tableName: 'people',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment', primaryKeyConstraintName: 'people_pkey' },
    role: { type: 'text', default: 'member' },
    firstName: { type: 'text', name: 'first_name' },
    lastName: { type: 'text', name: 'last_name' },
    firstNameFolded: { type: 'text', name: 'first_name_folded' },
    lastNameFolded: { type: 'text', name: 'last_name_folded' },
    chatId: { type: 'text', name: 'chat_id', nullable: true },
    plannerId: { type: 'text', name: 'planner_id', nullable: true },
    memberNumber: { type: 'text', name: 'member_number', nullable: true },
    erasedAt: { type: 'timestamptz', name: 'erased_at', nullable: true },
    standingAnnounced: { type: 'text', name: 'standing_announced', nullable: true },
    username: { type: 'text', nullable: true },
    passwordHash: { type: 'text', name: 'password_hash', nullable: true },
    permissions: { type: 'text', array: true, default: () => "'{}'" },
    disabled: { type: 'boolean', default: false },
    version: { type: 'integer', default: 1 },
    createdAt: { type: 'timestamptz', name: 'created_at', default: () => 'now()' },
    updatedAt: { type: 'timestamptz', name: 'updated_at', default: () => 'now()' },
  },
  uniques: [
    { name: 'people_username_key', columns: ['username'] },
    { name: 'people_member_number_key', columns: ['memberNumber'] },
  ],
  checks: [
    { name: 'people_role_check', expression: "role IN ('member', 'admin')" },
    { name: 'people_chat_id_check', expression: "chat_id <> ''" },
    { name: 'people_planner_id_check', expression: "planner_id <> ''" },
    { name: 'people_member_number_check', expression: "member_number <> ''" },
    { name: 'people_credentials_check', expression: '(username IS NULL) = (password_hash IS NULL)' },
    {
      name: 'people_erased_credentials_check',
      expression: "erased_at IS NULL OR (username IS NULL AND permissions = '{}')",
    },
  ],
  indices: [
    // Trigram (gin_trgm_ops) indexes are beyond what TypeORM describes: the migration owns them.
    { name: 'people_first_name_folded_trgm_idx', columns: ['firstNameFolded'], synchronize: false },
    { name: 'people_last_name_folded_trgm_idx', columns: ['lastNameFolded'], synchronize: false },
    // has_planner=true scans only the people who have one.
    { name: 'people_planner_id_idx', columns: ['id'], where: 'planner_id IS NOT NULL' },
    // chat_id is unique among members, the people the API shows.
    {
      name: 'people_member_chat_id_key',
      columns: ['chatId'],
      unique: true,
      where: "role = 'member' AND chat_id IS NOT NULL",
    },
  ],
});
