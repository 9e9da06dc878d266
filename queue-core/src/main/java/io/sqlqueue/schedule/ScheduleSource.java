package io.sqlqueue.schedule;

/**
 * Where a schedule was declared. Schedules from the code ({@link #ANNOTATION},
 * {@link #PROPERTIES}) are declared again at every start-up; one that the code no longer
 * declares stops firing and shows as orphaned until it is deleted, once no live instance
 * declares it. {@link #API} schedules
 * are the application's to manage.
 */
public enum ScheduleSource {

	ANNOTATION, PROPERTIES, API

}
