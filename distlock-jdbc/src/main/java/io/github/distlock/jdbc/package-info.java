/**
 * The lock engine on a relational database: one row per lock in one table, written through plain JDBC.
 */
@NullMarked
package io.github.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
