package io.sqlqueue.boot.handler;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import io.sqlqueue.JobHandler;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.boot.schedule.Recurring;
import io.sqlqueue.boot.schedule.ScheduleDeclarer;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.handler.Durations;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.handler.MethodJobInvoker;
import io.sqlqueue.schedule.ScheduleDefinition;

/**
 * Registers the {@link JobHandler @JobHandler} methods of each singleton bean in the
 * {@link HandlerRegistry}, as Spring's {@code ScheduledAnnotationBeanPostProcessor} does
 * for {@code @Scheduled}. Methods are found on the bean's target class and invoked on the
 * bean itself, so proxies (such as {@code @Transactional}) apply. A duplicate handler name
 * or a method that cannot be a handler fails the bean's creation, naming it. It also
 * collects the schedules of {@link Recurring @Recurring} handler methods.
 * <p>
 * The registry and the codec are looked up only when the first handler is found, so this
 * post-processor initializes no other bean early.
 */
public class JobHandlerBeanPostProcessor implements BeanPostProcessor, BeanFactoryAware, Ordered {

	private final ObjectProvider<HandlerRegistry> registry;

	private final ObjectProvider<PayloadCodec> codec;

	private final Set<Class<?>> classesWithoutHandlers = ConcurrentHashMap.newKeySet();

	private final List<ScheduleDefinition> recurring = new ArrayList<>();

	/** The limits per key that handlers declare, by queue, with the method that declares each. */
	private final Map<String, Map.Entry<LimitDefinition, String>> keyLimits = new LinkedHashMap<>();

	/** The fair turns that handlers declare, by queue, with the method that declares each. */
	private final Map<String, Map.Entry<Fairness, String>> fairness = new LinkedHashMap<>();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	public JobHandlerBeanPostProcessor(ObjectProvider<HandlerRegistry> registry, ObjectProvider<PayloadCodec> codec) {
		this.registry = registry;
		this.codec = codec;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.classesWithoutHandlers.contains(targetClass)
				|| !(AnnotationUtils.isCandidateClass(targetClass, JobHandler.class)
						|| AnnotationUtils.isCandidateClass(targetClass, Recurring.class))) {
			return bean;
		}
		Map<Method, JobHandler> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<JobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, JobHandler.class));
		// A schedule needs a handler to run: on a plain method it would never fire, silently.
		MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<Recurring>) (method) ->
				AnnotatedElementUtils.findMergedAnnotation(method, Recurring.class))
			.keySet()
			.stream()
			.filter((method) -> !methods.containsKey(method))
			.findFirst()
			.ifPresent((method) -> {
				throw new IllegalStateException("@Recurring on " + method.toGenericString()
						+ " needs @JobHandler on the same method: the schedule enqueues jobs for that handler");
			});
		if (methods.isEmpty()) {
			this.classesWithoutHandlers.add(targetClass);
			return bean;
		}
		requireSingleton(beanName, methods.keySet().iterator().next());
		methods.forEach((method, annotation) -> register(bean, beanName, method, annotation));
		return bean;
	}

	private void requireSingleton(String beanName, Method method) {
		if (this.beanFactory != null && this.beanFactory.containsBeanDefinition(beanName)
				&& !this.beanFactory.getMergedBeanDefinition(beanName).isSingleton()) {
			throw new IllegalStateException("@JobHandler method " + method.toGenericString() + " is on bean '"
					+ beanName + "', which is not a singleton: handlers must be on singleton beans");
		}
	}

	private void register(Object bean, String beanName, Method method, JobHandler annotation) {
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		String description = beanName + "#" + method.getName();
		HandlerDefinition definition;
		try {
			definition = new HandlerDefinition(annotation.value(), annotation.queue(),
					(annotation.maxAttempts() != 0) ? annotation.maxAttempts() : null, timeout(annotation),
					Set.copyOf(Arrays.asList(annotation.noRetryFor())),
					new MethodJobInvoker(bean, invocable, annotation.value(), this.codec.getObject(),
							annotation.lenientPayload()),
					description, annotation.transactional(), annotation.lenientPayload());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"@JobHandler method " + method.toGenericString() + " is invalid: " + ex.getMessage(), ex);
		}
		this.registry.getObject().register(definition);
		LimitDefinition keyLimit = keyLimit(annotation, method);
		if (keyLimit != null) {
			addKeyLimit(keyLimit, description);
		}
		Fairness fair = fairness(annotation, description);
		if (fair != null) {
			addFairness(annotation.queue(), fair, description);
		}
		Recurring recurring = AnnotatedElementUtils.findMergedAnnotation(method, Recurring.class);
		if (recurring != null) {
			ScheduleDefinition schedule = ScheduleDeclarer.fromAnnotation(recurring, annotation.value(),
					description);
			synchronized (this.recurring) {
				this.recurring.add(schedule);
			}
		}
	}

	/** The schedules that {@link Recurring @Recurring} declares on the handlers registered so far. */
	public List<ScheduleDefinition> recurringSchedules() {
		synchronized (this.recurring) {
			return List.copyOf(this.recurring);
		}
	}

	/**
	 * The limits per key that {@link JobHandler#concurrencyPerKey()} and
	 * {@link JobHandler#ratePerKey()} declare on the handlers registered so far: one for the
	 * pattern {@code *} of each handler's queue.
	 */
	public List<LimitDefinition> keyLimits() {
		synchronized (this.keyLimits) {
			return this.keyLimits.values().stream().map(Map.Entry::getKey).toList();
		}
	}

	private void addKeyLimit(LimitDefinition limit, String description) {
		synchronized (this.keyLimits) {
			Map.Entry<LimitDefinition, String> other = this.keyLimits.get(limit.queue());
			if (other != null && !other.getKey().equals(limit)) {
				throw new IllegalStateException("@JobHandler methods " + other.getValue() + " and " + description
						+ " declare different limits per key for queue '" + limit.queue() + "' (" + other.getKey().limit()
						+ "; " + limit.limit() + "): declare it on one, or in sqlqueue.queues." + limit.queue()
						+ ".key-limits");
			}
			this.keyLimits.putIfAbsent(limit.queue(), Map.entry(limit, description));
		}
	}

	/** The fair turns that {@link JobHandler#fair()} and {@link JobHandler#fairWeights()} declare, by queue. */
	public Map<String, Fairness> fairness() {
		synchronized (this.fairness) {
			Map<String, Fairness> declared = new LinkedHashMap<>();
			this.fairness.forEach((queue, entry) -> declared.put(queue, entry.getKey()));
			return declared;
		}
	}

	private void addFairness(String queue, Fairness fair, String description) {
		synchronized (this.fairness) {
			Map.Entry<Fairness, String> other = this.fairness.get(queue);
			if (other != null && !other.getKey().equals(fair)) {
				throw new IllegalStateException("@JobHandler methods " + other.getValue() + " and " + description
						+ " declare different fair turns for queue '" + queue + "' (" + other.getKey() + "; " + fair
						+ "): declare them on one, or in sqlqueue.queues." + queue + ".fair-weights");
			}
			this.fairness.putIfAbsent(queue, Map.entry(fair, description));
		}
	}

	private static @Nullable Fairness fairness(JobHandler annotation, String description) {
		if (!annotation.fair() && annotation.fairWeights().length == 0) {
			return null;
		}
		try {
			return Fairness.parse(List.of(annotation.fairWeights()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("@JobHandler method " + description + " declares fairWeights "
					+ ex.getMessage(), ex);
		}
	}

	private static @Nullable LimitDefinition keyLimit(JobHandler annotation, Method method) {
		if (annotation.concurrencyPerKey() == 0 && annotation.ratePerKey().isBlank()) {
			return null;
		}
		try {
			Integer concurrency = (annotation.concurrencyPerKey() != 0) ? annotation.concurrencyPerKey() : null;
			RateLimit rate = annotation.ratePerKey().isBlank() ? null : RateLimit.parse(annotation.ratePerKey());
			return LimitDefinition.ofKeys(annotation.queue(), "*", new Limit(concurrency, rate));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"@JobHandler method " + method.toGenericString() + " is invalid: " + ex.getMessage(), ex);
		}
	}

	private static @Nullable Duration timeout(JobHandler annotation) {
		return annotation.timeout().isBlank() ? null : Durations.parse(annotation.timeout());
	}

}
