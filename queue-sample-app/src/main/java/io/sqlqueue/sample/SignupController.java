package io.sqlqueue.sample;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.sample.SignupService.EmailTakenException;
import io.sqlqueue.sample.SignupService.Signup;

/**
 * {@code POST /signups} signs a user up (and queues their mails); {@code GET /users/{id}}
 * shows a user with the mails sent to them so far.
 */
@RestController
public class SignupController {

	private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");

	private final SignupService signups;

	private final Users users;

	private final SentMails sentMails;

	public SignupController(SignupService signups, Users users, SentMails sentMails) {
		this.signups = signups;
		this.users = users;
		this.sentMails = sentMails;
	}

	@PostMapping("/signups")
	public ResponseEntity<Signup> signUp(@RequestBody SignupRequest request) {
		String email = (request.email() != null) ? request.email().strip().toLowerCase(Locale.ROOT) : "";
		String name = (request.name() != null) ? request.name().strip() : "";
		if (email.length() > 254 || !EMAIL.matcher(email).matches()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "email must be an email address");
		}
		if (name.isEmpty() || name.length() > 200) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "name must be 1 to 200 characters");
		}
		Signup signup = this.signups.signUp(email, name);
		return ResponseEntity.created(URI.create("/users/" + signup.userId())).body(signup);
	}

	@GetMapping("/users/{id}")
	public UserView user(@PathVariable long id) {
		Users.User user = this.users.find(id)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No user " + id));
		return new UserView(user.id(), user.email(), user.name(), user.createdAt(), this.sentMails.forUser(id));
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> emailTaken(EmailTakenException ex) {
		return ResponseEntity.of(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage())).build();
	}

	/** The body of {@code POST /signups}. */
	public record SignupRequest(String email, String name) {

	}

	/** A user and the mails sent to them. */
	public record UserView(long id, String email, String name, Instant createdAt,
			List<SentMails.Mail> mails) {

	}

}
