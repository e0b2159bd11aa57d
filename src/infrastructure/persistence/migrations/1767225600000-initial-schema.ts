import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole schema, written by hand so that every constraint and index is deliberate.
 * Accounts live on the people row: an account is a person with a username.
 */
export class InitialSchema1767225600000 implements MigrationInterface {
  name = 'InitialSchema1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // In public, so that every schema on the search path (tests use one schema each) finds the
    // operator classes, and dropping a test schema never drops the extension.
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');

    await queryRunner.query(`
      CREATE TABLE clubs (
        id serial NOT NULL,
        name text NOT NULL,
        CONSTRAINT clubs_pkey PRIMARY KEY (id),
        CONSTRAINT clubs_name_key UNIQUE (name)
      )`);

    await queryRunner.query(`
      CREATE TABLE people (
        id serial NOT NULL,
        role text NOT NULL DEFAULT 'member',
        first_name text NOT NULL,
        last_name text NOT NULL,
        chat_id text,
        planner_id text,
        username text,
        password_hash text,
        permissions text[] NOT NULL DEFAULT '{}',
        disabled boolean NOT NULL DEFAULT false,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT people_pkey PRIMARY KEY (id),
        CONSTRAINT people_chat_id_key UNIQUE (chat_id),
        CONSTRAINT people_username_key UNIQUE (username),
        CONSTRAINT people_role_check CHECK (role IN ('member', 'admin')),
        CONSTRAINT people_chat_id_check CHECK (chat_id <> ''),
        CONSTRAINT people_planner_id_check CHECK (planner_id <> ''),
        CONSTRAINT people_credentials_check CHECK ((username IS NULL) = (password_hash IS NULL))
      )`);
    // Trigram indexes serve ILIKE '%...%' on names; a plain b-tree cannot.
    await queryRunner.query(
      'CREATE INDEX people_first_name_trgm_idx ON people USING gin (first_name gin_trgm_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX people_last_name_trgm_idx ON people USING gin (last_name gin_trgm_ops)',
    );
    // has_planner=true scans only the people who have one.
    await queryRunner.query('CREATE INDEX people_planner_id_idx ON people (id) WHERE planner_id IS NOT NULL');

    await queryRunner.query(`
      CREATE TABLE contacts (
        id serial NOT NULL,
        person_id integer NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        label text,
        CONSTRAINT contacts_pkey PRIMARY KEY (id),
        CONSTRAINT contacts_kind_check CHECK (kind IN ('email', 'phone', 'address')),
        CONSTRAINT contacts_person_id_fkey FOREIGN KEY (person_id) REFERENCES people (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE INDEX contacts_person_id_idx ON contacts (person_id)');
    // The email filter is a case-insensitive exact match.
    await queryRunner.query(
      "CREATE INDEX contacts_email_lower_idx ON contacts (lower(value)) WHERE kind = 'email'",
    );

    await queryRunner.query(`
      CREATE TABLE memberships (
        id serial NOT NULL,
        person_id integer NOT NULL,
        club_id integer NOT NULL,
        kind text,
        start_date date NOT NULL,
        end_date date,
        CONSTRAINT memberships_pkey PRIMARY KEY (id),
        CONSTRAINT memberships_dates_check CHECK (end_date IS NULL OR end_date >= start_date),
        CONSTRAINT memberships_person_id_fkey FOREIGN KEY (person_id) REFERENCES people (id) ON DELETE CASCADE,
        CONSTRAINT memberships_club_id_fkey FOREIGN KEY (club_id) REFERENCES clubs (id)
      )`);
    // Loading a person's memberships, and deciding "active" from the dates without the table.
    await queryRunner.query(
      'CREATE INDEX memberships_person_dates_idx ON memberships (person_id, start_date, end_date)',
    );
    await queryRunner.query('CREATE INDEX memberships_club_id_idx ON memberships (club_id)');

    await queryRunner.query(`
      CREATE TABLE api_keys (
        id serial NOT NULL,
        person_id integer NOT NULL,
        name text,
        prefix text NOT NULL,
        token_hash text NOT NULL,
        permissions text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT api_keys_pkey PRIMARY KEY (id),
        CONSTRAINT api_keys_token_hash_key UNIQUE (token_hash),
        CONSTRAINT api_keys_person_id_fkey FOREIGN KEY (person_id) REFERENCES people (id) ON DELETE CASCADE
      )`);
    await queryRunner.query('CREATE INDEX api_keys_person_created_idx ON api_keys (person_id, created_at)');

    // No foreign keys: the audit trail outlives what it describes.
    await queryRunner.query(`
      CREATE TABLE audit_entries (
        id serial NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        actor_account_id integer,
        actor_key_id integer,
        action text NOT NULL,
        subject_type text NOT NULL,
        subject_id integer NOT NULL,
        field text,
        old_value text,
        new_value text,
        CONSTRAINT audit_entries_pkey PRIMARY KEY (id)
      )`);
    await queryRunner.query(
      'CREATE INDEX audit_entries_subject_idx ON audit_entries (subject_type, subject_id, at)',
    );
    await queryRunner.query('CREATE INDEX audit_entries_actor_idx ON audit_entries (actor_account_id, at)');
    await queryRunner.query('CREATE INDEX audit_entries_at_idx ON audit_entries (at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The pg_trgm extension stays: other schemas in the same database may use it.
    await queryRunner.query('DROP TABLE audit_entries');
    await queryRunner.query('DROP TABLE api_keys');
    await queryRunner.query('DROP TABLE memberships');
    await queryRunner.query('DROP TABLE contacts');
    await queryRunner.query('DROP TABLE people');
    await queryRunner.query('DROP TABLE clubs');
  }
}
