/**
 * Start-up diagnostics of sqlqueue: an application whose handlers cannot run fails to start,
 * saying what is missing.
 */
@NullMarked
package io.sqlqueue.boot.diagnostics;

import org.jspecify.annotations.NullMarked;
