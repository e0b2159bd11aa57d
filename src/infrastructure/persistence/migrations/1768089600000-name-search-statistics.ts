import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The statistics target of the folded names: PostgreSQL's default is 100. */
const NAME_STATISTICS_TARGET = 1000;

const FOLDED_NAMES = ['first_name_folded', 'last_name_folded'];

/**
 * A name search (`last_name=son&limit=50`) has two plans: walk the people in id order until the
 * page is full, or take every match from the trigram index and sort them. Which is faster depends
 * on how many people match, and the planner guesses that from the column's statistics: with the
 * default 100 most common values and 100 histogram bounds its guess moved with each ANALYZE's
 * sample, and about one fragment in thirteen got the walk where the index was up to 2.4 times
 * faster (a fragment matching a few hundred people of 100,000 walks tens of thousands). With
 * 1,000 of each, that was one in thirty-three, and a search cost 0.12 ms more planning
 * (docs/performance.md). ANALYZE samples 300 rows per unit of target, so it now reads a directory
 * of up to 300,000 people whole: 0.5 s at 100,000. The statistics are gathered again here so that
 * an existing directory gets the better guesses at once, not at autovacuum's next ANALYZE.
 */
export class NameSearchStatistics1768089600000 implements MigrationInterface {
  name = 'NameSearchStatistics1768089600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.setTarget(queryRunner, NAME_STATISTICS_TARGET);
    await queryRunner.query(`ANALYZE people (${FOLDED_NAMES.join(', ')})`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // -1: back to default_statistics_target.
    await this.setTarget(queryRunner, -1);
  }

  private async setTarget(queryRunner: QueryRunner, target: number): Promise<void> {
    const columns = FOLDED_NAMES.map((column) => `ALTER COLUMN ${column} SET STATISTICS ${target}`);
    await queryRunner.query(`ALTER TABLE people ${columns.join(', ')}`);
  }
}
