package io.sqlqueue.sample;

import java.net.URI;
import java.util.Locale;
import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.InvalidJobException;
import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.NoSuchJobException;

/**
 * {@code POST /orders} takes an order and queues its {@code order.fulfil} job
 * ({@link OrderFulfilment}); {@code POST /orders/{jobId}/payment-callback} is where the
 * payment provider answers, delivered to that job as its {@code payment} signal. The job is
 * the order here: {@code GET /jobs/{id}} shows how far it got.
 */
@RestController
public class OrderController {

	private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");

	private final JobQueue jobs;

	public OrderController(JobQueue jobs) {
		this.jobs = jobs;
	}

	/** Queues the order's job: 202 Accepted with its id, and where to follow it. */
	@PostMapping("/orders")
	public ResponseEntity<OrderAccepted> order(@RequestBody OrderRequest request) {
		String item = (request.item() != null) ? request.item().strip() : "";
		String email = (request.email() != null) ? request.email().strip().toLowerCase(Locale.ROOT) : "";
		if (item.isEmpty() || item.length() > 200) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "item must be 1 to 200 characters");
		}
		if (request.cents() == null || request.cents() < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "cents must be a positive number");
		}
		if (email.length() > 254 || !EMAIL.matcher(email).matches()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "email must be an email address");
		}
		long jobId = this.jobs.enqueue(Job.of("order.fulfil", new FulfilOrder(item, request.cents(), email)));
		return ResponseEntity.accepted().location(URI.create("/jobs/" + jobId)).body(new OrderAccepted(jobId));
	}

	/**
	 * Sends the order's job its {@code payment} signal: 202 Accepted (the job resumes on a
	 * worker). 404 when there is no such order, 409 when the order has ended or already had
	 * its callback, 400 when the payload cannot be stored.
	 */
	@PostMapping("/orders/{jobId}/payment-callback")
	public ResponseEntity<Void> paymentCallback(@PathVariable long jobId, @RequestBody PaymentCallback callback) {
		// A signal to another kind of job would be kept and never read.
		if (this.jobs.find(jobId).filter((job) -> job.handler().equals("order.fulfil")).isEmpty()) {
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No order job " + jobId);
		}
		try {
			this.jobs.signal(jobId, OrderFulfilment.PAYMENT, callback);
		}
		catch (NoSuchJobException ex) {
			// Deleted since it was found.
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No order job " + jobId);
		}
		catch (InvalidJobException ex) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, ex.getMessage());
		}
		catch (IllegalStateException ex) {
			// The order has ended, or already had its callback: the first one is the one it reads.
			throw new ResponseStatusException(HttpStatus.CONFLICT, ex.getMessage());
		}
		return ResponseEntity.accepted().build();
	}

	/** The body of {@code POST /orders}: what, for how much, and whom to mail when it ships. */
	public record OrderRequest(String item, Long cents, String email) {

	}

	/** An order taken: its job's id. */
	public record OrderAccepted(long jobId) {

	}

}
