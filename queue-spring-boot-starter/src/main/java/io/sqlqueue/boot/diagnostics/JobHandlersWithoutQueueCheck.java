package io.sqlqueue.boot.diagnostics;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;

import io.sqlqueue.JobHandler;

/**
 * Fails the start of an application that has {@link JobHandler @JobHandler} methods when
 * the queue's auto-configuration backed off (it needs exactly one {@link DataSource}, or a
 * primary one): without it nothing registers the handlers, and their jobs would wait
 * forever without a word. Registered only when the auto-configuration did not run and
 * {@code sqlqueue.enabled} is not {@code false}; the {@link QueueNotStartedException} it
 * throws names the first handler method found and the missing piece.
 */
public class JobHandlersWithoutQueueCheck implements BeanPostProcessor, BeanFactoryAware, EnvironmentAware {

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable Environment environment;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(targetClass, JobHandler.class)) {
			return bean;
		}
		Set<Method> handlers = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<JobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, JobHandler.class))
			.keySet();
		if (!handlers.isEmpty()) {
			Method handler = handlers.iterator().next();
			throw notStarted("@JobHandler method " + targetClass.getSimpleName() + "#" + handler.getName()
					+ " (bean '" + beanName + "') would never run: sqlqueue did not start because ");
		}
		return bean;
	}

	private QueueNotStartedException notStarted(String subject) {
		String disable = " To run this application without the queue, set sqlqueue.enabled=false.";
		String[] dataSources = (this.beanFactory != null)
				? this.beanFactory.getBeanNamesForType(DataSource.class, true, false) : new String[0];
		if (dataSources.length > 1) {
			return new QueueNotStartedException(subject + "the application has " + dataSources.length
					+ " DataSource beans " + Arrays.toString(dataSources) + " and none is primary, so it cannot "
					+ "tell which database holds the queue.",
					"Mark the DataSource bean of the queue's database @Primary." + disable);
		}
		if (dataSources.length == 1) {
			return new QueueNotStartedException(subject + "its auto-configuration did not run.",
					"Run with --debug and read SqlQueueAutoConfiguration in the conditions evaluation report."
							+ disable);
		}
		if (DataSourceBuilder.findType(classLoader()) == null) {
			return new QueueNotStartedException(subject + "the application has no DataSource bean: Spring Boot "
					+ "makes one from spring.datasource.url only with a connection pool on the class path (HikariCP, "
					+ "Tomcat JDBC, Commons DBCP2 or Oracle UCP), and there is none.",
					"Add com.zaxxer:HikariCP (queue-spring-boot-starter brings it through spring-boot-starter-jdbc: "
							+ "check that it is not excluded)." + disable);
		}
		String url = (this.environment != null) ? this.environment.getProperty("spring.datasource.url") : null;
		if (url == null) {
			return new QueueNotStartedException(subject + "the application has no DataSource bean: "
					+ "spring.datasource.url is not set.",
					"Set spring.datasource.url and add the database's JDBC driver (such as org.postgresql:postgresql "
							+ "or org.mariadb.jdbc:mariadb-java-client), or define a DataSource bean." + disable);
		}
		return new QueueNotStartedException(subject + "the application has no DataSource bean, although "
				+ "spring.datasource.url is set and a connection pool is on the class path: Spring Boot's "
				+ "DataSourceAutoConfiguration did not run.",
				"Do not exclude DataSourceAutoConfiguration, or define a DataSource bean of your own." + disable);
	}

	private @Nullable ClassLoader classLoader() {
		return (this.beanFactory != null) ? this.beanFactory.getBeanClassLoader() : null;
	}

}
