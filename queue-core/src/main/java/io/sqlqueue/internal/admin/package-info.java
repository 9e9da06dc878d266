/**
 * The implementation of {@link io.sqlqueue.admin.QueueAdmin}: the operator actions on the
 * queue's facades and store.
 */
@NullMarked
package io.sqlqueue.internal.admin;

import org.jspecify.annotations.NullMarked;
