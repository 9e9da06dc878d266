/**
 * The sqlqueue dashboard: what its pages show (the overview, pages of jobs, one job's
 * detail and timeline) and what its actions do, independent of HTTP.
 */
@NullMarked
package io.sqlqueue.dashboard;

import org.jspecify.annotations.NullMarked;
