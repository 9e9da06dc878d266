/**
 * The dashboard over HTTP: its page, its JSON API and the checks every action passes.
 */
@NullMarked
package io.sqlqueue.dashboard.web;

import org.jspecify.annotations.NullMarked;
