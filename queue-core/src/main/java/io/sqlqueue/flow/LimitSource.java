package io.sqlqueue.flow;

/**
 * Where a limit was set. Limits from the configuration ({@link #PROPERTIES}) and from
 * handlers' annotations ({@link #ANNOTATION}) are declared again at every start-up: one no
 * longer declared is removed. {@link #API} limits are the application's to manage.
 */
public enum LimitSource {

	ANNOTATION, PROPERTIES, API

}
