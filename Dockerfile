FROM python:3.11-slim

# The source tree comes first on the path, so BASE_DIR (templates, static, locale) is /app.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app
COPY . .
RUN pip install . \
    && DEBUG=0 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --no-create-home closed-circle

USER closed-circle
EXPOSE 8000
# Workers, threads, timeouts: config/gunicorn.py (each settable from the environment).
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
